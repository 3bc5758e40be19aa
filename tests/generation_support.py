"""Test support for generation: a scripted fake provider behind litellm, SSE
parsing, and SPEC.md's event contract."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply, last_user_message, wants_json

POST_TEXT = (
    "Small teams ship weekly because nobody waits for permission.\n\n"
    "We cut our release cycle from a month to a week. Here is what changed.\n\n"
    "What is stopping your team from shipping on Friday?\n\n#shipping #startups"
)
CHAT_TEXT = "A good hook names a tension your reader already feels."
SUMMARY_TEXT = "The article says weekly releases cut risk."


@dataclass
class FakeAI:
    """The fake provider, answering each kind of request the pipeline makes.

    `post_reply` decides the answer to a post-writing request (given its prompt);
    `intent` is what the intent classifier answers.
    """

    server: FakeOpenAI
    intent: str = "post"
    post_reply: Callable[[str], Reply] = field(default=lambda _prompt: Reply(text=POST_TEXT))
    chat_reply: Callable[[str], Reply] = field(default=lambda _prompt: Reply(text=CHAT_TEXT))

    carousel_reply: Callable[[int], Reply] = field(default=lambda count: carousel_outline(count))

    def respond(self, body: dict[str, Any]) -> Reply:
        prompt = last_user_message(body)
        if wants_json(body):
            if prompt.startswith("Decide what the user wants"):
                return Reply.json({"intent": self.intent})
            if prompt.startswith("Plan a LinkedIn carousel of "):
                return self.carousel_reply(int(prompt.split()[5]))
            if prompt.startswith("Plan ") and "content calendar" in prompt:
                count = int(prompt.split()[1])
                return Reply.json(
                    {
                        "posts": [
                            {"theme": f"Theme {n}", "angle": f"Angle {n}."}
                            for n in range(1, count + 1)
                        ]
                    }
                )
            return Reply.json({"questions": ["Who is it for?", "What changed?", "Any numbers?"]})
        if prompt.startswith("Summarise the main points"):
            return Reply(text=SUMMARY_TEXT)
        if prompt.startswith(("Write a LinkedIn post about", "Write a LinkedIn post for day")):
            return self.post_reply(prompt)
        return self.chat_reply(prompt)

    def post_prompts(self) -> list[dict[str, Any]]:
        return [
            body
            for body in self.server.iter_requests()
            if last_user_message(body).startswith("Write a LinkedIn post about")
        ]


def carousel_outline(count: int) -> Reply:
    """A well-formed carousel outline of `count` slides, as a model would answer."""
    return Reply.json(
        {
            "name": "Ship weekly",
            "caption": "Small teams ship weekly.\n\nHere is how, in a few slides.",
            "slides": [
                {
                    "title": f"Point {n}",
                    "text": f"The text of slide {n}.",
                    "image_prompt": f"An illustration for slide {n}",
                }
                for n in range(1, count + 1)
            ],
        }
    )


@pytest.fixture
def fake_ai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAI]:
    with FakeOpenAI() as server:
        ai = FakeAI(server=server)
        server.responder = ai.respond
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SOCIALGEN_TIMEOUT", "10")
        yield ai


@dataclass(frozen=True)
class SseEvent:
    name: str
    data: Any


def parse_sse(text: str) -> list[SseEvent]:
    events = []
    for block in re.split(r"\r?\n\r?\n", text.strip()):
        if not block.strip():
            continue
        name, data = "message", ""
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
        events.append(SseEvent(name, json.loads(data) if data else None))
    return events


def names(events: list[SseEvent]) -> list[str]:
    return [e.name for e in events if e.name != "keepalive"]


# SPEC.md's payloads: key -> type (a tuple for alternatives). Extra keys are allowed
# where SPEC.md says the payload is "not shown" or lists only some fields.
_STR, _INT, _BOOL, _LIST, _DICT = str, int, bool, list, dict
CONTRACT: dict[str, dict[str, Any]] = {
    "keepalive": {"ping": _BOOL},
    "url_processing_start": {"message": _STR, "count": _INT},
    "reasoning_started": {},
    "reasoning_delta": {"text": _STR},
    "reasoning_ended": {},
    "chat_delta": {"text": _STR},
    "content_delta": {"text": _STR, "accumulated": _STR},
    "chat_response": {
        "conversationId": _STR,
        "response": _STR,
        "suggestedQuestions": _LIST,
        "conversationHistory": _LIST,
    },
    "post_ids": {"conversationId": _STR, "postId": _STR, "refinementQuestions": _LIST},
    "error": {"message": _STR},
    "batch_progress": {"current": _INT, "total": _INT, "variationName": _STR, "status": _STR},
    "batch_complete": {
        "success": _BOOL,
        "originalPrompt": _STR,
        "isRegeneration": _BOOL,
        "posts": _LIST,
        "errors": _LIST,
        "summary": _DICT,
    },
}
EXACT = {
    "keepalive",
    "reasoning_started",
    "reasoning_ended",
    "reasoning_delta",
    "chat_delta",
    "content_delta",
    "chat_response",
    "post_ids",
    "error",
}
BATCH_ITEM = {
    "index": _INT,
    "postId": _STR,
    "conversationId": _STR,
    "content": _STR,
    "variationName": _STR,
    "status": _STR,
}


def check_contract(events: list[SseEvent]) -> None:
    """Every event's payload has SPEC.md's keys with SPEC.md's types."""
    for item in events:
        if re.fullmatch(r"post_[1-5]_post_ids", item.name):
            assert isinstance(item.data["postId"], str) and isinstance(
                item.data["conversationId"], str
            )
            continue
        expected = CONTRACT.get(item.name)
        if expected is None:
            if item.name in ("scraping_url", "summarizing_content", "extraction_completed"):
                assert isinstance(item.data, dict)
                continue
            raise AssertionError(f"event not in SPEC.md: {item.name}")
        assert isinstance(item.data, dict), item
        if item.name in EXACT:
            assert set(item.data) == set(expected), item
        for key, kind in expected.items():
            assert key in item.data, (item.name, key)
            assert isinstance(item.data[key], kind), (item.name, key, item.data[key])
        if item.name == "batch_progress":
            assert item.data["status"] in ("generating", "completed", "failed")
            assert 1 <= item.data["current"] <= 5
            assert ("postId" in item.data) == (item.data["status"] == "completed")
        if item.name == "batch_complete":
            assert set(item.data["summary"]) == {"total", "generated", "failed"}
            for post in item.data["posts"]:
                assert set(post) == set(BATCH_ITEM)
                assert post["status"] == "draft"
