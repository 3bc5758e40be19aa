"""The scripted models' answer to a calendar's themes (found by this module's name,
tests/doubles/scripted_replies.py): `scripted_ai.calendar_reply(count)` answers the
JSON plan of `count` themes; asked as a line list, one line off the topic."""

from __future__ import annotations

import re
from typing import Any

from tests.doubles.scripted_replies import ScriptedReply, plan_reply

# "Plan 7 LinkedIn posts": how many themes the plan asks for.
POSTS_ASKED = re.compile(r"\b(\d+) LinkedIn posts\b")


# "Idea 3", not "Theme 3": a theme of the prompt's own words is an echo of it, not a
# theme (drafting.echo).
def calendar_themes(count: int) -> dict[str, Any]:
    return {"posts": [{"theme": f"Idea {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)]}


REPLIES = (
    ScriptedReply(
        "calendar_themes",
        plan_reply(POSTS_ASKED),
        knob="calendar_reply",
        default=calendar_themes,
    ),
)
