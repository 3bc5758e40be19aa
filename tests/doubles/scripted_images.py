"""An image model for tests: records each request, paints it procedurally (no
network), or fails it when the script says so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from socialgen.ai.image_types import ImageResult
from socialgen.ai.procedural import procedural_image


@dataclass(frozen=True)
class ImageCall:
    prompt: str
    width: int
    height: int
    references: tuple[bytes, ...]


# Answers a call with an image, an exception to raise, or None for the painted default.
ImageResponder = Callable[[ImageCall], ImageResult | Exception | None]


class ScriptedImageModel:
    """An `ImageModel` (see ai/image_types.py): `fail` (e.g. a ModelError) fails
    every request; a responder decides per request."""

    name = "scripted-images"

    def __init__(
        self, *, fail: Exception | None = None, responder: ImageResponder | None = None
    ) -> None:
        self.fail = fail
        self.responder = responder
        self.calls: list[ImageCall] = []

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        call = ImageCall(prompt, width, height, tuple(references))
        self.calls.append(call)
        if self.fail is not None:
            raise self.fail
        answer = self.responder(call) if self.responder is not None else None
        if isinstance(answer, Exception):
            raise answer
        if answer is not None:
            return answer
        return await asyncio.to_thread(procedural_image, prompt, width, height, references)
