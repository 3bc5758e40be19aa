"""Writing a post with the model: streaming text with reasoning events, and the
finished post cleaned for LinkedIn (its prompt: post_prompt.py)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

from socialgen.ai.model import Message, ModelError, TextModel, complete
from socialgen.drafting.linkedin import to_linkedin_text
from socialgen.drafting.planning_profile import second_draft_when_off_topic
from socialgen.drafting.refusal import is_refusal, opening_of
from socialgen.drafting.topic import on_topic, topic_coverage
from socialgen.events import Event
from socialgen.events.chat import ReasoningDelta, ReasoningEnded, ReasoningStarted

logger = logging.getLogger("socialgen.drafting")


class TextWriter:
    """Streams a model answer as events and keeps the whole text.

    `delta` builds the event for each new piece of text (chat_delta or
    content_delta); reasoning, when the model shows it, is framed by
    reasoning_started / reasoning_ended.
    """

    def __init__(self, delta: Callable[[str, str], Event], *, max_tokens: int) -> None:
        self.delta = delta
        self.max_tokens = max_tokens  # the max_tokens setting
        self.text = ""

    async def run(
        self, model: TextModel, messages: list[Message], *, purpose: str
    ) -> AsyncIterator[Event]:
        reasoning = False
        stream = model.stream(messages, max_tokens=self.max_tokens, purpose=purpose)
        async for chunk in stream:
            if chunk.reasoning:
                if not reasoning:
                    reasoning = True
                    yield Event.of(ReasoningStarted())
                yield Event.of(ReasoningDelta.token(chunk.reasoning))
            if chunk.text:
                if reasoning:
                    reasoning = False
                    yield Event.of(ReasoningEnded())
                self.text += chunk.text
                yield self.delta(chunk.text, self.text)
        if reasoning:
            yield Event.of(ReasoningEnded())


def finished_post(raw: str) -> str:
    """The post cleaned for LinkedIn; a ModelError when there is none: an empty
    answer, or one that declines to write it (drafting/refusal.py), never saved as
    if it were the post."""
    post = to_linkedin_text(raw)
    if not post:
        raise ModelError("The model returned an empty post; try again or rephrase the topic")
    if is_refusal(post):
        raise ModelError(
            f"The model declined to write this post ({opening_of(post)!r}); "
            "try again or rephrase the topic"
        )
    return post


async def write_draft(
    model: TextModel, messages: list[Message], topic: str, *, max_tokens: int
) -> str:
    """A whole post, not streamed (batch drafts). A draft the model declined to
    write is asked once more (a declined second one fails with finished_post's
    error). A small model's draft that misses the topic is written once more and
    the one carrying more of it kept: SmolLM2-135M drifts in about one draft in ten
    (a story about "a marketing manager in New York" for "running a bakery as a
    solo founder")."""
    raw = await complete(model, messages, max_tokens=max_tokens, purpose="post")
    if is_refusal(to_linkedin_text(raw)):
        logger.info("draft declined, asked once more: %r", opening_of(raw))
        raw = await complete(model, messages, max_tokens=max_tokens, purpose="post")
    post = finished_post(raw)
    if not second_draft_when_off_topic(model) or on_topic(post, topic):
        return post
    second = to_linkedin_text(
        await complete(model, messages, max_tokens=max_tokens, purpose="post")
    )
    if not second or is_refusal(second):
        return post  # the first draft, off topic, is still a post
    return max((post, second), key=lambda text: topic_coverage(text, topic))
