"""The scripted models' answers to generation's model calls (tests/doubles/
scripted_replies.py finds this module by its name): the chat intent, a post, a chat
answer, suggested questions and a link's summary, with the texts tests compare to."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.doubles.scripted_replies import ScriptedReply

POST_TEXT = (
    "Small teams ship weekly because nobody waits for permission.\n\n"
    "We cut our release cycle from a month to a week. Here is what changed.\n\n"
    "What is stopping your team from shipping on Friday?\n\n#shipping #startups"
)
CHAT_TEXT = "A good hook names a tension your reader already feels."
SUMMARY_TEXT = "The article says weekly releases cut risk."
QUESTIONS = ["Who is it for?", "What changed?", "Any numbers?"]


def variation_of(call: ScriptedCall) -> str:
    """The variation a batch's post call asks for (a data value of its prompt)."""
    found = re.search(r"Style of this version \(([^)]+)\)", call.prompt)
    assert found is not None, call.prompt
    return found.group(1)


def _intent(call: ScriptedCall, intent: str) -> Reply:
    # The structured rungs want {"intent": ...}; a small model's grammar one word.
    return {"intent": intent} if call.schema_name == "intent" else intent


def _by_knob(call: ScriptedCall, knob: Callable[[ScriptedCall], Reply]) -> Reply:
    return knob(call)


def _fixed(reply: Reply) -> Callable[[ScriptedCall, Any], Reply]:
    return lambda _call, _knob: reply


REPLIES = (
    # `scripted_ai.intent = "chat"`: what the intent classifier answers.
    ScriptedReply("intent", _intent, knob="intent", default="post"),
    # `scripted_ai.post_reply` / `chat_reply`: a function of the call.
    ScriptedReply("post", _by_knob, knob="post_reply", default=lambda _call: POST_TEXT),
    ScriptedReply("chat", _by_knob, knob="chat_reply", default=lambda _call: CHAT_TEXT),
    ScriptedReply("questions", _fixed({"questions": QUESTIONS})),
    ScriptedReply("summary", _fixed(SUMMARY_TEXT)),
)
