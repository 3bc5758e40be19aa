"""Content styles as SPEC.md shapes them."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, WithJsonSchema
from typing_extensions import TypedDict

from socialgen.limits import (
    MAX_POST_CHARS,
    MAX_STYLE_POSTS_PER_CALL,
    NOT_BLANK_PATTERN,
    STYLE_FROM_TOP,
)
from socialgen.posts.rules import CONTENT_REQUIRED
from socialgen.posts.schemas import required_fields

NAME_REQUIRED = "Content style name is required"
POSTS_REQUIRED = "posts must be a non-empty array of strings"
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 2000


class StylePostView(TypedDict):
    _id: str
    content: str


class ContentStyleView(TypedDict):
    _id: str
    name: str
    description: str | None
    workspaceId: str
    userId: str | None
    posts: list[StylePostView]
    createdAt: str
    updatedAt: str


# Request bodies. The service checks values with SPEC.md's messages; the models refuse
# wrong types (strict: no "5" for a number, no 5 for a string), and their schemas state
# what the service accepts. A null optional field is the same as leaving it out.
_NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAME_CHARS,
    "pattern": NOT_BLANK_PATTERN,
}
_DESCRIPTION: dict[str, Any] = {
    "anyOf": [{"type": "string", "maxLength": MAX_DESCRIPTION_CHARS}, {"type": "null"}]
}
_EXAMPLE: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_POST_CHARS,
    "pattern": NOT_BLANK_PATTERN,
}
_DESCRIPTION_NOTE = f"At most {MAX_DESCRIPTION_CHARS} characters once trimmed; blank clears it."


class CreateStyleBody(BaseModel):
    model_config = ConfigDict(strict=True, json_schema_extra=required_fields("name"))
    missing_body: ClassVar[str] = NAME_REQUIRED

    name: Annotated[StrictStr | None, WithJsonSchema(_NAME)] = Field(
        default=None, description="Style name: not blank, at most 200 characters once trimmed."
    )
    description: Annotated[StrictStr | None, WithJsonSchema(_DESCRIPTION)] = Field(
        default=None, description=_DESCRIPTION_NOTE
    )
    fromTop: Annotated[
        StrictInt | None,
        WithJsonSchema(
            {
                "anyOf": [
                    {
                        "type": "integer",
                        "minimum": STYLE_FROM_TOP.low,
                        "maximum": STYLE_FROM_TOP.high,
                    },
                    {"type": "null"},
                ]
            }
        ),
    ] = Field(
        default=None,
        description=(
            f"Teach the new style at once with the workspace's N best published posts "
            f"({STYLE_FROM_TOP.describe()}) by engagement relative to the creator's usual "
            "at the time; 400 when fewer measured published posts exist."
        ),
    )


class UpdateStyleBody(BaseModel):
    """What is given changes; null or absent leaves a field as it is."""

    model_config = ConfigDict(strict=True)

    name: Annotated[StrictStr | None, WithJsonSchema({"anyOf": [_NAME, {"type": "null"}]})] = Field(
        default=None, description="A new name (not blank)."
    )
    description: Annotated[StrictStr | None, WithJsonSchema(_DESCRIPTION)] = Field(
        default=None, description=_DESCRIPTION_NOTE
    )


class StylePostsBody(BaseModel):
    model_config = ConfigDict(json_schema_extra=required_fields("posts"))
    missing_body: ClassVar[str] = POSTS_REQUIRED

    # Any: the service names the item that is wrong ("Post 2 must be a string").
    posts: Annotated[
        Any,
        WithJsonSchema(
            {
                "type": "array",
                "items": _EXAMPLE,
                "minItems": 1,
                "maxItems": MAX_STYLE_POSTS_PER_CALL,
            }
        ),
    ] = Field(default=None, description="Example posts, at most 5 per call.")


class StylePostBody(BaseModel):
    model_config = ConfigDict(strict=True, json_schema_extra=required_fields("content"))
    missing_body: ClassVar[str] = CONTENT_REQUIRED

    content: Annotated[StrictStr | None, WithJsonSchema(_EXAMPLE)] = Field(
        default=None, description="The example's new text."
    )


# GET get-posts-from-social-profile: the endpoint reads profileUrl itself (SPEC.md's
# message when it is missing or blank), so the document declares it here.
PROFILE_URL_PARAMETER: dict[str, Any] = {
    "parameters": [
        {
            "name": "profileUrl",
            "in": "query",
            "required": True,
            "description": "Full profile URL (public http or https).",
            "schema": {"type": "string", "format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"},
        }
    ]
}
