"""Model providers a bench talks to over HTTP: the fake OpenAI-compatible server with
a paced responder, and llama-cpp-python's own server on the embedded GGUF."""

from __future__ import annotations

import argparse
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

# The repository root is on sys.path: the package's __init__ put it there.
from tests.fakes.openai_server import (
    FAKE_API_KEY,
    FAKE_MODEL,
    FakeOpenAI,
    Reply,
    last_user_message,
    wants_json,
)
from tests.llama_server import LlamaServer

__all__ = [
    "FAKE_API_KEY",
    "FAKE_MODEL",
    "POST_PREFIXES",
    "FakeOpenAI",
    "LlamaServer",
    "PacedResponder",
    "Reply",
    "add_pace_options",
    "json_object_answers",
    "last_user_message",
    "litellm_stream",
    "pace_line",
    "paced_responder",
    "post_text",
    "wants_json",
]

POST_PREFIXES = ("Write a LinkedIn post about", "Write a LinkedIn post for day")
SENTENCES = (
    "Small teams ship weekly because nobody waits for permission.",
    "Every change got smaller, so every review got faster.",
    "Ten small releases show ten surprises one at a time.",
    "A short note on why beats a long meeting on what.",
    "Customers noticed the fixes before we announced them.",
    "We stopped batching fixes and started shipping them.",
    "The release checklist shrank from two pages to five lines.",
)


def post_text(chars: int) -> str:
    """Exactly `chars` characters of sentences, ending with a full stop."""
    words: list[str] = []
    index = 0
    while sum(len(word) + 1 for word in words) < chars:
        words.append(SENTENCES[index % len(SENTENCES)])
        index += 1
    text = " ".join(words)[: chars - 1].rstrip()
    return text + "." * (chars - len(text))


_PLAN_COUNT = re.compile(r"\b(\d+) LinkedIn posts\b")  # "Plan 7 LinkedIn posts"


# The json_object rung writes the schema into the prompt: "... an? NAME matching ...".
_SCHEMA_IN_PROMPT = re.compile(r"JSON object only, no other text: an? (\w+) matching")
_SLIDE_COUNT = re.compile(r"\b(\d+) slides\b")


def json_object_answers(body: dict[str, Any]) -> Reply:
    """A provider that answers json_object requests with well-formed JSON for the
    schema the ladder names (the json-object provider of bench/quality.py: there,
    every plan should be the model's) and free text with a short post."""
    from tests.calendar_replies import calendar_themes
    from tests.carousel_replies import carousel_outline
    from tests.generation_replies import POST_TEXT, QUESTIONS

    found = _SCHEMA_IN_PROMPT.search(last_user_message(body)) if wants_json(body) else None
    name = found.group(1) if found else None
    prompt = last_user_message(body)
    if name == "intent":
        return Reply.json({"intent": "post"})
    if name == "questions":
        return Reply.json({"questions": QUESTIONS})
    if name == "carousel_outline":
        return Reply.json(carousel_outline(int(_SLIDE_COUNT.search(prompt).group(1))))  # type: ignore[union-attr]
    if name == "calendar_themes":
        return Reply.json(calendar_themes(int(_PLAN_COUNT.search(prompt).group(1))))  # type: ignore[union-attr]
    return Reply(text=POST_TEXT)


class PacedResponder:
    """The fake provider's answers for a bench: post-writing requests at a fixed pace
    (their arrival times recorded), every side request (intent, questions, a
    calendar's theme plan) at once. `probe`, when set, is read as each post request
    arrives (a client process's CPU time so far, say) and kept beside its arrival."""

    def __init__(self, text: str, chunk_chars: int, token_delay: float) -> None:
        self.text = text
        self.chunk_chars = chunk_chars
        self.token_delay = token_delay
        self.arrivals: list[float] = []
        self.probed: list[float | None] = []
        self.probe: Callable[[], float] | None = None
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = last_user_message(body)
        if wants_json(body):
            # Structured requests by the schema's name (json_schema is the first rung).
            name = (body["response_format"].get("json_schema") or {}).get("name")
            if name == "intent":
                return Reply.json({"intent": "post"})
            if name == "calendar_themes":
                count = int(_PLAN_COUNT.search(prompt).group(1))  # type: ignore[union-attr]
                themes = [
                    {"theme": f"Theme {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)
                ]
                return Reply.json({"posts": themes})
            return Reply.json({"questions": ["Who is it for?", "What changed?", "Any numbers?"]})
        # Free text: on the wire only the prompt tells a post from a chat answer.
        if prompt.startswith(POST_PREFIXES):
            with self._lock:
                self.arrivals.append(time.monotonic())
                self.probed.append(self.probe() if self.probe is not None else None)
            return Reply(text=self.text, chunk_chars=self.chunk_chars, token_delay=self.token_delay)
        return Reply(text="A short answer.")

    def count(self) -> int:
        with self._lock:
            return len(self.arrivals)

    def since(self, mark: int) -> list[float]:
        with self._lock:
            return list(self.arrivals[mark:])

    def probed_after(self, mark: int) -> float | None:
        """What `probe` read when the first post request after `mark` arrived."""
        with self._lock:
            return self.probed[mark] if len(self.probed) > mark else None

    def arrival_after(self, mark: int) -> float:
        with self._lock:
            if len(self.arrivals) <= mark:
                raise RuntimeError("the post-writing request never reached the fake")
            return self.arrivals[mark]


def add_pace_options(parser: argparse.ArgumentParser, chunks: int) -> None:
    """--chunks, --chunk-chars and --token-delay: how fast the fake writes a post."""
    parser.add_argument("--chunks", type=int, default=chunks, help="chunks per post")
    parser.add_argument("--chunk-chars", type=int, default=4)
    parser.add_argument("--token-delay", type=float, default=0.01, help="seconds per chunk")


def paced_responder(args: argparse.Namespace) -> PacedResponder:
    """The responder `add_pace_options`' options describe."""
    text = post_text(args.chunks * args.chunk_chars)
    return PacedResponder(text, args.chunk_chars, args.token_delay)


def pace_line(args: argparse.Namespace) -> str:
    return (
        f"fake provider: {args.chunks} chunks of {args.chunk_chars} characters per post, "
        f"{args.token_delay * 1000:.0f} ms apart; JSON side requests at once"
    )


async def litellm_stream(
    base_url: str, messages: Sequence[dict[str, str]], max_tokens: int = 700
) -> AsyncIterator[Any]:
    """A streamed completion from the fake through litellm alone (no socialgen): the
    floor socialgen's own streaming is compared against."""
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    response = await litellm.acompletion(
        model=f"openai/{FAKE_MODEL}",
        api_base=base_url,
        api_key=FAKE_API_KEY,
        messages=list(messages),
        stream=True,
        num_retries=0,
        timeout=60,
        max_tokens=max_tokens,
    )
    async for part in response:
        yield part
