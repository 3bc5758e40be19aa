"""The scripted models' answer to a carousel's outline (found by this module's name,
tests/doubles/scripted_replies.py): `scripted_ai.carousel_reply(count)` answers the
JSON plan of `count` slides; asked as a line list, one line off the topic."""

from __future__ import annotations

import re
from typing import Any

from tests.doubles.scripted_replies import ScriptedReply, plan_reply

# "a carousel of 4 slides": how many slides the outline asks for.
SLIDES_ASKED = re.compile(r"\b(\d+) slides\b")


def carousel_outline(count: int) -> dict[str, Any]:
    return {
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


REPLIES = (
    ScriptedReply(
        "carousel_outline",
        plan_reply(SLIDES_ASKED),
        knob="carousel_reply",
        default=carousel_outline,
    ),
)
