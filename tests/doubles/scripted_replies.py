"""The scripted models' answers, declared by each feature's own test support: a module
`tests/<feature>_replies.py` lists, in `REPLIES`, one `ScriptedReply` per purpose of
model call its feature makes ("post", "carousel_outline" ...).

They are found by their file name, the way socialgen finds every `*/feature.py`:
nothing here or in tests/scripted_support.py names a purpose, so a new feature's
model call is answered once its own `tests/<feature>_replies.py` says how
(docs/architecture.md, "Add a feature", step 7). A responder answers by purpose,
never by the prompt's wording; a reply may still read a data value of its own
feature's prompt (how many slides a plan asks for).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.doubles.scripted_model import Reply, ScriptedCall

TESTS = Path(__file__).resolve().parents[1]
PATTERN = "*_replies.py"

# What a plan asked as a line list (a small model's, or a JSON plan's top-up) gets by
# default: one line off the topic, nothing to keep, so the template stands in.
OFF_TOPIC_LINE = "A good hook names a tension your reader already feels."


@dataclass(frozen=True)
class ScriptedReply:
    """How the scripted models answer one purpose of model call.

    reply(call, knob): the answer, given the call and the knob's value (None when the
        purpose has no knob).
    knob / default: the ScriptedAI attribute a test sets to change this answer
        (`scripted_ai.post_reply = ...`), and its value until one does.
    """

    purpose: str
    reply: Callable[[ScriptedCall, Any], Reply]
    knob: str | None = None
    default: Any = None


def reply_modules() -> list[str]:
    """The modules that declare replies, by file name: tests/<feature>_replies.py."""
    return [f"tests.{path.stem}" for path in sorted(TESTS.glob(PATTERN))]


@cache
def scripted_replies() -> Mapping[str, ScriptedReply]:
    """Every declared reply by its purpose; a purpose or a knob declared twice fails."""
    found: dict[str, ScriptedReply] = {}
    knobs: dict[str, str] = {}
    for name in reply_modules():
        module = importlib.import_module(name)
        for reply in module.REPLIES:
            assert reply.purpose not in found, f"{name}: a second reply for {reply.purpose!r}"
            found[reply.purpose] = reply
            if reply.knob is not None:
                assert reply.knob not in knobs, f"{name}: knob {reply.knob!r} is taken"
                knobs[reply.knob] = reply.purpose
    return found


def knob_defaults() -> dict[str, Any]:
    """A fresh set of knobs, each at its declared default."""
    return {
        reply.knob: reply.default for reply in scripted_replies().values() if reply.knob is not None
    }


def answer(call: ScriptedCall, knobs: Mapping[str, Any]) -> Reply:
    """The declared answer to `call`, with these knob values."""
    declared = scripted_replies().get(call.purpose or "")
    if declared is None:
        raise AssertionError(
            f"no scripted reply for purpose {call.purpose!r}: declare one in the REPLIES "
            f"of its feature's tests/<feature>_replies.py"
        )
    return declared.reply(call, None if declared.knob is None else knobs[declared.knob])


def asked_count(call: ScriptedCall, wording: re.Pattern[str]) -> int:
    """How many items a plan asks for, read with its feature's `wording` (one group)."""
    found = wording.search(call.prompt)
    assert found, f"no count in: {call.prompt[:200]!r}"
    return int(found.group(1))


def plan_reply(wording: re.Pattern[str]) -> Callable[[ScriptedCall, Any], Reply]:
    """A plan's reply: the knob's answer for the count asked (`knob(count)`) when the
    plan is asked as JSON; as a line list, one line off the topic."""

    def reply(call: ScriptedCall, knob: Callable[[int], Reply]) -> Reply:
        if call.schema_name is None:
            return OFF_TOPIC_LINE
        return knob(asked_count(call, wording))

    return reply
