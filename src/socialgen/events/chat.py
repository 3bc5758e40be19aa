"""The chat and generate-post streams: links read from the input, reasoning, the text
as it is written, and the final answer or post identifiers.

The three token deltas (reasoning_delta, chat_delta, content_delta) come once per
token, so they have a hot path: `token(...)` builds them without the runtime check
(model_construct) and `wire()` writes their JSON object by hand. Both are safe only
because their fields are plain strings that mypy checks at every call; every other
payload goes through the check. Measured per token on the SSE path (build, dump,
encode): 6.3 µs checked, 5.3 µs on the hot path; tests/test_event_building.py
checks that both build the same bytes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from socialgen.events.payload import EventPayload, WireObject


class UrlProcessingStart(EventPayload):
    """The input holds links (at most 3); they are fetched and summarised as sources."""

    event_name: ClassVar[str] = "url_processing_start"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"message": "Reading 2 link(s)", "count": 2},)
    message: str = Field(description="A status line for the user.")
    count: int = Field(ge=1, description="How many links will be read.")


class ScrapingUrl(EventPayload):
    """One link is being fetched (socialgen's fields: SPEC.md does not show them)."""

    event_name: ClassVar[str] = "scraping_url"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"url": "https://example.com/a", "message": "Fetching it"},
    )
    url: str = Field(description="The link.")
    message: str = Field(description="A status line for the user.")


class SummarizingContent(EventPayload):
    """One link was read; its main text is being summarised (socialgen's fields)."""

    event_name: ClassVar[str] = "summarizing_content"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"url": "https://example.com/a", "title": "A page"},
    )
    url: str = Field(description="The link.")
    title: str = Field(description="The page's title, or the link when it has none.")


class UrlFailure(WireObject):
    url: str = Field(description="The link that could not be used.")
    message: str = Field(description="Why.")


class ExtractionCompleted(EventPayload):
    """Every link was tried; what could be read becomes source material (socialgen's
    fields)."""

    event_name: ClassVar[str] = "extraction_completed"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "count": 1,
            "urls": ["https://example.com/a", "https://example.com/b"],
            "failed": [{"url": "https://example.com/b", "message": "404"}],
            "message": "Read 1 of 2 link(s)",
        },
    )
    count: int = Field(ge=0, description="How many links were read.")
    urls: list[str] = Field(description="The links found in the input.")
    failed: list[UrlFailure] = Field(description="The links that could not be used.")
    message: str = Field(description="A status line for the user.")


class ReasoningStarted(EventPayload):
    """The model shows its reasoning; reasoning_delta events follow."""

    event_name: ClassVar[str] = "reasoning_started"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({},)


class ReasoningDelta(EventPayload):
    """A chunk of the model's reasoning."""

    event_name: ClassVar[str] = "reasoning_delta"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"text": "Think first."},)
    text: str = Field(description="The chunk.")

    @classmethod
    def token(cls, text: str) -> ReasoningDelta:
        return cls.model_construct(text=text)  # unchecked: text is a str (mypy)

    def wire(self) -> dict[str, Any]:
        return {"text": self.text}


class ReasoningEnded(EventPayload):
    """The reasoning is over; the answer's text follows."""

    event_name: ClassVar[str] = "reasoning_ended"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({},)


class ChatDelta(EventPayload):
    """A chunk of text as it is written: the chat's general answer; in generate-post, the
    post; in batch, one closing line that sums up the result."""

    event_name: ClassVar[str] = "chat_delta"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"text": "A hook "},)
    text: str = Field(description="The chunk.")

    @classmethod
    def token(cls, text: str) -> ChatDelta:
        return cls.model_construct(text=text)  # unchecked: text is a str (mypy)

    def wire(self) -> dict[str, Any]:
        return {"text": self.text}


class ContentDelta(EventPayload):
    """A chunk of the post the chat writes when the user asks for a post."""

    event_name: ClassVar[str] = "content_delta"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"text": "names ", "accumulated": "A hook names "},
    )
    text: str = Field(description="The chunk.")
    accumulated: str = Field(description="The post's text so far.")

    @classmethod
    def token(cls, text: str, accumulated: str) -> ContentDelta:
        # Unchecked: both are str (mypy).
        return cls.model_construct(text=text, accumulated=accumulated)

    def wire(self) -> dict[str, Any]:
        return {"text": self.text, "accumulated": self.accumulated}


class HistoryItem(WireObject):
    role: str = Field(description="user or assistant.")
    content: str = Field(description="The message.")
    createdAt: str = Field(description="ISO 8601 timestamp.")


class ChatResponse(EventPayload):
    """Final event of a general chat answer."""

    event_name: ClassVar[str] = "chat_response"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "conversationId": "c1",
            "response": "A hook names a tension.",
            "suggestedQuestions": ["Why?"],
            "conversationHistory": [
                {"role": "user", "content": "Hooks?", "createdAt": "2025-01-01T10:00:00Z"},
                {"role": "assistant", "content": "A hook…", "createdAt": "2025-01-01T10:00:01Z"},
            ],
        },
    )
    conversationId: str = Field(description="The conversation (new, or the one continued).")
    response: str = Field(description="The whole answer.")
    suggestedQuestions: list[str] = Field(description="Up to 3 follow-up questions.")
    conversationHistory: list[HistoryItem] = Field(
        description="The conversation's messages, oldest first."
    )


class PostIds(EventPayload):
    """Final event of post generation: the draft (or its new version) is saved."""

    event_name: ClassVar[str] = "post_ids"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"conversationId": "c1", "postId": "p1", "refinementQuestions": ["Who?"]},
    )
    conversationId: str = Field(description="The post's conversation.")
    postId: str = Field(description="The post.")
    refinementQuestions: list[str] = Field(description="Up to 3 questions to refine it.")
