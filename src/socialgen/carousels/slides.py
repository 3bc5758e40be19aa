"""What a slide template is given: the slide's words and image, the theme, the brand.

Images reach templates as data: URIs, because the PDF renderer loads nothing else
(no file://, no network); `data_uri` builds them.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    primary_color: str  # CSS colour, e.g. "#0A66C2"
    background_color: str
    font: str  # a font family name, e.g. "DejaVu Sans"

    def as_dict(self) -> dict[str, str]:
        """SPEC.md's slide theme: primaryColor, backgroundColor, font."""
        return {
            "primaryColor": self.primary_color,
            "backgroundColor": self.background_color,
            "font": self.font,
        }


@dataclass(frozen=True)
class SlideContent:
    title: str
    content: str
    image_uri: str | None  # data: URI of the slide's image


@dataclass(frozen=True)
class Brand:
    handle: str | None  # e.g. "@ada", shown on every slide
    name: str | None  # the author's display name
    profile_image_uri: str | None  # data: URI
    logo_uri: str | None  # data: URI; shown on every slide when given


def data_uri(data: bytes, media_type: str) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"
