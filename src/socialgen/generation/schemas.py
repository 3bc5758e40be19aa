"""Request bodies of the generation endpoints (the CLI builds the same objects).

The plan (generation/plan.py) checks values with SPEC.md's messages ("userInput is
required"); the models refuse wrong types (strict: 5 is not a string), and their
schemas state what the plan accepts. A null optional field is the same as leaving it
out; so is a blank id.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, WithJsonSchema

from socialgen.events.batch import BATCH_SIZE
from socialgen.limits import MAX_INPUT_CHARS, NOT_BLANK_PATTERN
from socialgen.posts.schemas import required_fields

USER_INPUT_REQUIRED = "userInput is required"

_USER_INPUT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_INPUT_CHARS,
    "pattern": NOT_BLANK_PATTERN,
}
_OPTIONAL_ID: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}]}


class ChatRequest(BaseModel):
    model_config = ConfigDict(strict=True, json_schema_extra=required_fields("userInput"))
    # No body at all: the server's validation-error handler answers with this.
    missing_body: ClassVar[str] = USER_INPUT_REQUIRED

    userInput: Annotated[StrictStr | None, WithJsonSchema(_USER_INPUT)] = Field(
        default=None,
        description=f"The user's message: not blank, at most {MAX_INPUT_CHARS} characters.",
    )
    conversationId: Annotated[StrictStr | None, WithJsonSchema(_OPTIONAL_ID)] = Field(
        default=None, description="Continue this conversation."
    )
    contentStyleId: Annotated[StrictStr | None, WithJsonSchema(_OPTIONAL_ID)] = Field(
        default=None, description="Write in this content style."
    )


class GeneratePostRequest(ChatRequest):
    postId: Annotated[StrictStr | None, WithJsonSchema(_OPTIONAL_ID)] = Field(
        default=None,
        description="Regenerate this post; its conversation is used when conversationId is absent.",
    )


class BatchRequest(BaseModel):
    model_config = ConfigDict(strict=True, json_schema_extra=required_fields("userInput"))
    missing_body: ClassVar[str] = USER_INPUT_REQUIRED

    userInput: Annotated[StrictStr | None, WithJsonSchema(_USER_INPUT)] = Field(
        default=None, description="Base context for all variations."
    )
    contentStyleId: Annotated[StrictStr | None, WithJsonSchema(_OPTIONAL_ID)] = None
    postIds: Annotated[
        list[StrictStr] | None,
        WithJsonSchema(
            {
                "anyOf": [
                    {
                        "type": "array",
                        "items": {"type": "string", "pattern": NOT_BLANK_PATTERN},
                        "minItems": 1,
                        "maxItems": BATCH_SIZE,
                    },
                    {"type": "null"},
                ]
            }
        ),
    ] = Field(
        default=None,
        description=f"Regenerate only these drafts (at most {BATCH_SIZE}) instead of "
        "creating 5 new posts.",
    )
