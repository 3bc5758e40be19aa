"""What several streams share: keep-alive, the error that ends a stream, and the
{total, generated, failed} summary of batch and calendar."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

from pydantic import Field, model_validator

from socialgen.events.payload import EventPayload, WireObject


class Keepalive(EventPayload):
    """Sent after 15 s without another event (`SOCIALGEN_KEEPALIVE_SECONDS`), so proxies
    keep the connection open."""

    event_name: ClassVar[str] = "keepalive"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"ping": True},)
    ping: Literal[True] = Field(description="Always true.")


class StreamError(EventPayload):
    """The stream failed and ends here; nothing half-written is kept and the quota of
    what was not written is given back. The calendar's message starts with
    "failed to generate content calendar: "."""

    event_name: ClassVar[str] = "error"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"message": "Post quota exceeded"},)
    message: str = Field(description="What went wrong, for the user.")

    def reports_failure(self) -> bool:
        return True


class Summary(WireObject):
    total: int = Field(ge=0, description="Posts asked for.")
    generated: int = Field(ge=0, description="Posts written and saved.")
    failed: int = Field(ge=0, description="Posts that failed.")

    @model_validator(mode="after")
    def _adds_up(self) -> Self:
        if self.generated + self.failed != self.total:
            raise ValueError("generated + failed must equal total")
        return self
