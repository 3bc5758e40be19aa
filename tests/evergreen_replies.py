"""The scripted models' answer to evergreen's model call (tests/doubles/scripted_replies.py
finds this module by its name): a fresh variation of the original, a different one for
each run, carrying some of the original's words (as a real rewrite does)."""

from __future__ import annotations

import re
from collections.abc import Callable

from socialgen.drafting.topic import topic_words
from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.doubles.scripted_replies import ScriptedReply

PURPOSE = "evergreen_variation"
# Five openings and closings with no word in common: two runs never read alike.
_FRAMES = (
    ("Looking back at this one", "Still true today? Tell me what changed for you."),
    ("A year on, I would say it differently", "Which part do you disagree with?"),
    ("Someone asked me about this again", "Reply with the one you would add."),
    ("Here is the short version", "Save it for your next planning session."),
    ("Old lesson, fresh eyes", "Has your experience matched mine?"),
)


def original_of(call: ScriptedCall) -> str:
    """The original post the call gives (a data value of its prompt)."""
    found = re.search(r"The original post:\n(.*?)\n\n", call.prompt + "\n\n", re.DOTALL)
    assert found is not None, call.prompt
    return found.group(1)


def version_of(call: ScriptedCall) -> int:
    found = re.search(r"Write version (\d+)", call.prompt)
    assert found is not None, call.prompt
    return int(found.group(1))


def fresh_variation(call: ScriptedCall) -> str:
    """Version N of the original: a frame of its own, the original's content words."""
    number = version_of(call)
    words = topic_words(original_of(call))
    picked = words[number % 3 :: 2][:5] or words[:5]
    opening, closing = _FRAMES[number % len(_FRAMES)]
    return f"{opening}: {', '.join(picked)}.\n\n{closing}"


def _by_knob(call: ScriptedCall, knob: Callable[[ScriptedCall], Reply]) -> Reply:
    return knob(call)


REPLIES: tuple[ScriptedReply, ...] = (
    # `scripted_ai.evergreen_reply = lambda call: ...`: the variation, a function of the call.
    ScriptedReply(PURPOSE, _by_knob, knob="evergreen_reply", default=fresh_variation),
)
