"""Content styles as SPEC.md shapes them: the views (kit/views.py) and the request bodies."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, StrictInt, StrictStr

from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.limits import (
    MAX_POST_CHARS,
    MAX_STYLE_POSTS_PER_CALL,
    NOT_BLANK_PATTERN,
    STYLE_FROM_TOP,
)
from socialgen.kit.views import View
from socialgen.posts.rules import CONTENT_REQUIRED

NAME_REQUIRED = "Content style name is required"
POSTS_REQUIRED = "posts must be a non-empty array of strings"
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 2000


class StylePostView(View):
    id_: str = Field(alias="_id")
    content: str


class ContentStyleView(View):
    id_: str = Field(alias="_id")
    name: str
    description: str | None
    workspaceId: str
    userId: str | None
    posts: list[StylePostView]
    createdAt: str
    updatedAt: str


class StyleResponse(View):
    success: bool
    data: ContentStyleView


class StyleListResponse(View):
    success: bool
    count: int
    data: list[ContentStyleView]


class StylePostResponse(View):
    success: bool
    data: StylePostView


class StylePostsResponse(View):
    success: bool
    count: int
    data: list[StylePostView]


# Request bodies. The service checks values with SPEC.md's messages; the models refuse
# wrong types (strict: no "5" for a number, no 5 for a string), and each field is
# documented as the shape the service accepts (`ShownAs`: the schema pydantic
# generates for that type). A null optional field is the same as leaving it out.
StyleName = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME_CHARS, pattern=NOT_BLANK_PATTERN)
]
StyleDescription = Annotated[str, Field(max_length=MAX_DESCRIPTION_CHARS)]
Example = Annotated[str, Field(min_length=1, max_length=MAX_POST_CHARS, pattern=NOT_BLANK_PATTERN)]
FromTop = Annotated[int, Field(ge=STYLE_FROM_TOP.low, le=STYLE_FROM_TOP.high)]
_DESCRIPTION_NOTE = f"At most {MAX_DESCRIPTION_CHARS} characters once trimmed; blank clears it."


class CreateStyleBody(CheckedBody):
    model_config = ConfigDict(strict=True)
    missing_body: ClassVar[str] = NAME_REQUIRED

    name: Annotated[StrictStr | None, ShownAs(StyleName, required=True)] = Field(
        default=None, description="Style name: not blank, at most 200 characters once trimmed."
    )
    description: Annotated[StrictStr | None, ShownAs(StyleDescription | None)] = Field(
        default=None, description=_DESCRIPTION_NOTE
    )
    fromTop: Annotated[StrictInt | None, ShownAs(FromTop | None)] = Field(
        default=None,
        description=(
            f"Teach the new style at once with the workspace's N best published posts "
            f"({STYLE_FROM_TOP.describe()}) by engagement relative to the creator's usual "
            "at the time; 400 when fewer measured published posts exist."
        ),
    )


class UpdateStyleBody(CheckedBody):
    """What is given changes; null or absent leaves a field as it is."""

    model_config = ConfigDict(strict=True)

    name: Annotated[StrictStr | None, ShownAs(StyleName | None)] = Field(
        default=None, description="A new name (not blank)."
    )
    description: Annotated[StrictStr | None, ShownAs(StyleDescription | None)] = Field(
        default=None, description=_DESCRIPTION_NOTE
    )


class StylePostsBody(CheckedBody):
    missing_body: ClassVar[str] = POSTS_REQUIRED

    # Any: the service names the item that is wrong ("Post 2 must be a string").
    posts: Annotated[
        Any,
        ShownAs(
            Annotated[list[Example], Field(min_length=1, max_length=MAX_STYLE_POSTS_PER_CALL)],
            required=True,
        ),
    ] = Field(default=None, description="Example posts, at most 5 per call.")


class StylePostBody(CheckedBody):
    model_config = ConfigDict(strict=True)
    missing_body: ClassVar[str] = CONTENT_REQUIRED

    content: Annotated[StrictStr | None, ShownAs(Example, required=True)] = Field(
        default=None, description="The example's new text."
    )
