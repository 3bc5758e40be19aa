"""Carousel requests, from JSON, multipart form fields, or CLI options alike.

SPEC.md's fields are prompt, userProfileImage, socialMediaHandle (create) and
carouselId, slideIndex, prompt (regenerate). template, contentStyleId and
slideCount are socialgen's additions; all are optional.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from socialgen.errors import BadRequest
from socialgen.limits import DEFAULT_SLIDES, MAX_SLIDES, MIN_SLIDES
from socialgen.request_body import optional_text as text

MAX_PROMPT_CHARS = 4000
_HANDLE = re.compile(r"^@?[A-Za-z0-9_.-]{1,60}$")


@dataclass(frozen=True)
class CarouselRequest:
    prompt: str
    handle: str | None = None
    profile_image_url: str | None = None
    template: str | None = None
    content_style_id: str | None = None
    slide_count: int = DEFAULT_SLIDES

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> CarouselRequest:
        return cls(
            prompt=prompt(fields.get("prompt")),
            handle=handle(text(fields.get("socialMediaHandle"), "socialMediaHandle")),
            profile_image_url=text(fields.get("userProfileImage"), "userProfileImage"),
            template=text(fields.get("template"), "template"),
            content_style_id=text(fields.get("contentStyleId"), "contentStyleId"),
            slide_count=slide_count(fields.get("slideCount")),
        )


@dataclass(frozen=True)
class RegenerateSlideRequest:
    carousel_id: str
    slide_index: int
    prompt: str

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> RegenerateSlideRequest:
        carousel_id = text(fields.get("carouselId"), "carouselId")
        if carousel_id is None:
            raise BadRequest("carouselId is required")
        return cls(
            carousel_id=carousel_id,
            slide_index=slide_index(fields.get("slideIndex")),
            prompt=prompt(fields.get("prompt")),
        )


def prompt(value: Any) -> str:
    cleaned = text(value, "prompt")
    if cleaned is None:
        raise BadRequest("prompt is required")
    if len(cleaned) > MAX_PROMPT_CHARS:
        raise BadRequest(f"prompt is longer than {MAX_PROMPT_CHARS} characters")
    return cleaned


def handle(value: str | None) -> str | None:
    """`ada` or `@ada` → `@ada`; letters, digits, `_`, `.`, `-` only."""
    if value is None:
        return None
    if not _HANDLE.match(value):
        raise BadRequest(
            "socialMediaHandle must be a handle such as @ada_lovelace "
            "(letters, digits, _ . - ; at most 60 characters)"
        )
    return value if value.startswith("@") else f"@{value}"


def slide_count(value: Any) -> int:
    if value is None or value == "":
        return DEFAULT_SLIDES
    number = whole_number(value, "slideCount")
    if not MIN_SLIDES <= number <= MAX_SLIDES:
        raise BadRequest(f"slideCount must be between {MIN_SLIDES} and {MAX_SLIDES}")
    return number


def slide_index(value: Any) -> int:
    if value is None or value == "":
        raise BadRequest("slideIndex is required")
    number = whole_number(value, "slideIndex")
    if number < 0:
        raise BadRequest("slideIndex must be 0 or more (0 is the first slide)")
    return number


def whole_number(value: Any, name: str) -> int:
    """An integer from JSON (1, 1.0) or a form field ("1"); refuses 1.5, true, "x"."""
    if isinstance(value, bool):
        raise BadRequest(f"{name} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,9}\s*", value):
        return int(value)
    raise BadRequest(f"{name} must be an integer")
