"""Request bodies of the generation endpoints (the CLI builds the same objects).

The plan (generation/plan.py) checks values with SPEC.md's messages ("userInput is
required"); the models refuse wrong types (strict: 5 is not a string), and their
schemas state what the plan accepts. A null optional field is the same as leaving it
out; so is a blank id.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import ConfigDict, Field, StrictStr

from socialgen.generation.batch_events import BATCH_SIZE
from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.limits import MAX_INPUT_CHARS, NOT_BLANK_PATTERN

USER_INPUT_REQUIRED = "userInput is required"

# What the plan accepts, documented (the models take any string or null).
UserInput = Annotated[
    str, Field(min_length=1, max_length=MAX_INPUT_CHARS, pattern=NOT_BLANK_PATTERN)
]
PostIds = Annotated[
    list[Annotated[str, Field(pattern=NOT_BLANK_PATTERN)]],
    Field(min_length=1, max_length=BATCH_SIZE),
]


class ChatRequest(CheckedBody):
    model_config = ConfigDict(strict=True)
    # No body at all: the server's validation-error handler answers with this.
    missing_body: ClassVar[str] = USER_INPUT_REQUIRED

    userInput: Annotated[StrictStr | None, ShownAs(UserInput, required=True)] = Field(
        default=None,
        description=f"The user's message: not blank, at most {MAX_INPUT_CHARS} characters.",
    )
    conversationId: StrictStr | None = Field(
        default=None, description="Continue this conversation."
    )
    contentStyleId: StrictStr | None = Field(
        default=None, description="Write in this content style."
    )


class GeneratePostRequest(ChatRequest):
    postId: StrictStr | None = Field(
        default=None,
        description="Regenerate this post; its conversation is used when conversationId is absent.",
    )


class BatchRequest(CheckedBody):
    model_config = ConfigDict(strict=True)
    missing_body: ClassVar[str] = USER_INPUT_REQUIRED

    userInput: Annotated[StrictStr | None, ShownAs(UserInput, required=True)] = Field(
        default=None, description="Base context for all variations."
    )
    contentStyleId: StrictStr | None = None
    postIds: Annotated[list[StrictStr] | None, ShownAs(PostIds | None)] = Field(
        default=None,
        description=f"Regenerate only these drafts (at most {BATCH_SIZE}) instead of "
        "creating 5 new posts.",
    )
