"""The OpenAPI request bodies of the carousel endpoints, which read their bodies by hand
(carousels/body.py, carousels/requests.py); these say what that code accepts.

Rules the reading code follows, and so the schemas: text is trimmed, and a blank or
null optional field is the same as leaving it out; numbers are JSON numbers (a form
sends them as digits, the only way a form can).
"""

from __future__ import annotations

from typing import Any

from socialgen.carousels.requests import MAX_PROMPT_CHARS
from socialgen.carousels.templates import TEMPLATES
from socialgen.limits import (
    BLANK_PATTERN,
    DEFAULT_SLIDE_HEIGHT,
    DEFAULT_SLIDE_WIDTH,
    DEFAULT_SLIDES,
    MAX_PDF_SLIDES,
    MAX_REFERENCE_IMAGES,
    MAX_SLIDE_SIDE,
    MAX_SLIDES,
    MIN_SLIDES,
    NOT_BLANK_PATTERN,
    SPACE_CLASS,
)

_BLANK: dict[str, Any] = {"type": "string", "pattern": BLANK_PATTERN}
_NULL: dict[str, Any] = {"type": "null"}


def _optional(*schemas: dict[str, Any], description: str) -> dict[str, Any]:
    """A field that may also be blank or null (both mean: not given)."""
    return {"anyOf": [*schemas, _BLANK, _NULL], "description": description}


_PROMPT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_PROMPT_CHARS,
    "pattern": NOT_BLANK_PATTERN,
    "description": f"At most {MAX_PROMPT_CHARS} characters once trimmed.",
}
_HANDLE: dict[str, Any] = {
    "type": "string",
    "pattern": f"^[{SPACE_CLASS}]*@?[A-Za-z0-9_.-]{{1,60}}[{SPACE_CLASS}]*$",
}
_TEMPLATE: dict[str, Any] = {
    "type": "string",
    "pattern": f"^[{SPACE_CLASS}]*({'|'.join(TEMPLATES)})[{SPACE_CLASS}]*$",
}
_URL: dict[str, Any] = {"type": "string", "format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"}
_SLIDE_COUNT: dict[str, Any] = {"type": "integer", "minimum": MIN_SLIDES, "maximum": MAX_SLIDES}
_IMAGE: dict[str, Any] = {"type": "string", "format": "binary"}
_REFERENCES: dict[str, Any] = {
    "type": "array",
    "items": _IMAGE,
    "maxItems": MAX_REFERENCE_IMAGES,
    "description": "PNG, JPEG, WebP or GIF images, at most 8 MB each; repeat the field.",
}

_CREATE_FIELDS: dict[str, Any] = {
    "prompt": _PROMPT,
    "socialMediaHandle": _optional(
        _HANDLE, description="ada or @ada: letters, digits, _ . - (at most 60)."
    ),
    "template": _optional(_TEMPLATE, description="The slide template (default bold)."),
    "contentStyleId": _optional({"type": "string"}, description="A content style's id."),
    "slideCount": {
        "anyOf": [_SLIDE_COUNT, _NULL],
        "default": DEFAULT_SLIDES,
        "description": f"Slides, {MIN_SLIDES} to {MAX_SLIDES}.",
    },
}
CREATE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["prompt"],
                    "properties": {
                        **_CREATE_FIELDS,
                        "userProfileImage": _optional(
                            _URL, description="URL of the author's picture (public http(s))."
                        ),
                    },
                }
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["prompt"],
                    "properties": {
                        **_CREATE_FIELDS,
                        "slideCount": {"anyOf": [_SLIDE_COUNT, _BLANK]},
                        # In a form, a part with a file name is a file, a text part a URL.
                        "userProfileImage": {
                            "anyOf": [_IMAGE, _URL, _BLANK],
                            "description": "The author's picture: an image file or a URL.",
                        },
                        "brandLogo": _IMAGE,
                        "referenceImages": _REFERENCES,
                    },
                }
            },
        },
    }
}

_REGENERATE_FIELDS: dict[str, Any] = {
    "carouselId": {"type": "string", "minLength": 1, "pattern": NOT_BLANK_PATTERN},
    "slideIndex": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_SLIDES - 1,  # no carousel has more slides
        "description": "The slide, counting from 0; less than the carousel's slide count.",
    },
    "prompt": _PROMPT,
}
REGENERATE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": list(_REGENERATE_FIELDS),
                    "properties": _REGENERATE_FIELDS,
                }
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": list(_REGENERATE_FIELDS),
                    "properties": {**_REGENERATE_FIELDS, "referenceImages": _REFERENCES},
                }
            },
        },
    }
}

_SIDE: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": MAX_SLIDE_SIDE}
PDF_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["slidesHtml"],
                    "properties": {
                        "slidesHtml": {
                            "type": "array",
                            "items": {"type": "string", "pattern": NOT_BLANK_PATTERN},
                            "minItems": 1,
                            "maxItems": MAX_PDF_SLIDES,
                            "description": "One HTML document per slide, each not blank; at "
                            "most 2 MB of UTF-8 per slide and 16 MB in all.",
                        },
                        "width": {**_SIDE, "default": DEFAULT_SLIDE_WIDTH},
                        "height": {**_SIDE, "default": DEFAULT_SLIDE_HEIGHT},
                    },
                }
            }
        },
    }
}
