"""What every tool's arguments share: the workspace, a post, an id.

Each feature's tools (its `mcp_tools.py`) define their arguments beside them, as
pydantic models named as SPEC.md's bodies name them: where an HTTP endpoint has a body
model, the tool's model is that body plus `InWorkspace` (and `OnePost`, where the path
names a post): the same names, descriptions, JSON schemas and checks. The service
still checks values with SPEC.md's messages.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StrictStr

from socialgen.kit.limits import NOT_BLANK_PATTERN

AnId = Annotated[StrictStr, Field(min_length=1, max_length=200, pattern=NOT_BLANK_PATTERN)]


class InWorkspace(BaseModel):
    workspaceId: StrictStr | None = Field(
        default=None,
        description="The workspace to act in. Default: the server's workspace (stdio: the "
        "default one, or --workspace; HTTP: the API key's).",
    )


class OnePost(InWorkspace):
    postId: AnId = Field(description="The post's id.")
