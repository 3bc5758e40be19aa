"""Test support for generation: a scripted fake provider behind litellm, SSE
parsing, and the check of events against their models."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from socialgen.events.registry import read
from socialgen.features import streams
from tests.fakes.openai_server import FakeOpenAI, Reply, last_user_message

POST_TEXT = (
    "Small teams ship weekly because nobody waits for permission.\n\n"
    "We cut our release cycle from a month to a week. Here is what changed.\n\n"
    "What is stopping your team from shipping on Friday?\n\n#shipping #startups"
)
CHAT_TEXT = "A good hook names a tension your reader already feels."
SUMMARY_TEXT = "The article says weekly releases cut risk."


_SCHEMA_IN_PROMPT = re.compile(r"JSON object only, no other text: an? (\w+) matching")


def schema_name(body: dict[str, Any]) -> str | None:
    """The name of the structured answer a request asks for: the json_schema's name,
    or (json_object and plain-text rungs) the name written with the schema in the
    prompt. None for a request that wants free text."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return str(response_format["json_schema"]["name"])
    found = _SCHEMA_IN_PROMPT.search(last_user_message(body))
    return found.group(1) if found else None


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
        schema = schema_name(body)
        if schema == "intent":
            return Reply.json({"intent": self.intent})
        if schema == "carousel_outline":
            return self.carousel_reply(int(prompt.split()[5]))
        if schema == "calendar_themes":
            count = int(prompt.split()[1])
            return Reply.json(
                {
                    "posts": [
                        {"theme": f"Theme {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)
                    ]
                }
            )
        if schema == "questions":
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
    from socialgen.ai.structured import forget_rungs

    forget_rungs()  # each test's provider starts from the top rung
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


def check_contract(events: list[SseEvent], stream: str | None = None) -> None:
    """Every event is one SPEC.md (or socialgen) declares, its payload exactly its model
    (socialgen.events.registry): the contract lives with the models, not here. With
    `stream` ("chat", "post", "batch", "calendar", "carousel"), each event is also one
    that stream sends."""
    sent_by = {model for s in streams() if s.key == stream for model in s.events}
    for item in events:
        assert isinstance(item.data, dict), item
        payload = read(item.name, item.data)
        assert stream is None or type(payload) in sent_by, f"{stream} does not send {item.name}"
