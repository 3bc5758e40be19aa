"""Carousel requests, from JSON, multipart form fields, or CLI options alike.

SPEC.md's fields are prompt, userProfileImage, socialMediaHandle (create) and
carouselId, slideIndex, prompt (regenerate). template, contentStyleId and
slideCount are socialgen's additions; all are optional.

Numbers are JSON numbers: "6" is refused in a JSON body, as the OpenAPI document
says. Only a multipart form, where every field is text, gives them as digits
(`form=True`).
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
    def from_fields(cls, fields: dict[str, Any], *, form: bool = False) -> CarouselRequest:
        return cls(
            prompt=prompt(fields.get("prompt")),
            handle=handle(text(fields.get("socialMediaHandle"), "socialMediaHandle")),
            profile_image_url=text(fields.get("userProfileImage"), "userProfileImage"),
            template=text(fields.get("template"), "template"),
            content_style_id=text(fields.get("contentStyleId"), "contentStyleId"),
            slide_count=slide_count(fields.get("slideCount"), form=form),
        )


@dataclass(frozen=True)
class RegenerateSlideRequest:
    carousel_id: str
    slide_index: int
    prompt: str

    @classmethod
    def from_fields(cls, fields: dict[str, Any], *, form: bool = False) -> RegenerateSlideRequest:
        carousel_id = text(fields.get("carouselId"), "carouselId")
        if carousel_id is None:
            raise BadRequest("carouselId is required")
        return cls(
            carousel_id=carousel_id,
            slide_index=slide_index(fields.get("slideIndex"), form=form),
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


def slide_count(value: Any, *, form: bool = False) -> int:
    if value is None or (form and value == ""):
        return DEFAULT_SLIDES
    number = whole_number(value, "slideCount", text=form)
    if not MIN_SLIDES <= number <= MAX_SLIDES:
        raise BadRequest(f"slideCount must be between {MIN_SLIDES} and {MAX_SLIDES}")
    return number


def slide_index(value: Any, *, form: bool = False) -> int:
    if value is None or (form and value == ""):
        raise BadRequest("slideIndex is required")
    number = whole_number(value, "slideIndex", text=form)
    if number < 0:
        raise BadRequest("slideIndex must be 0 or more (0 is the first slide)")
    return number


def whole_number(value: Any, name: str, *, text: bool = False) -> int:
    """An integer from JSON (1, and 1.0, which JSON Schema counts as an integer), or
    with `text` (a form field) digits ("1"); refuses 1.5, true, "x", and "1" in JSON."""
    if isinstance(value, bool):
        raise BadRequest(f"{name} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    # Up to 18 digits: any size the callers' range checks refuse by name, far below
    # what makes int() slow.
    if text and isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
        return int(value)
    raise BadRequest(f"{name} must be an integer")
