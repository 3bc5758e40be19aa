"""What an image model is and what it gives back.

Apart from `images.py` (the gateway that picks a model) so that the models
themselves (`procedural.py`, the litellm one) can name these types without
importing the gateway that imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ImageResult:
    data: bytes
    media_type: str  # "image/jpeg", "image/png" or "image/webp"


class ImageModel(Protocol):
    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        """An image for `prompt` of about width x height (a provider may only come
        close: callers fit it to the slide). `references` (up to 5 images' bytes)
        guide it where the model supports them. Raises ModelError on any failure."""
        ...
