"""The scripted models' answer to a carousel's outline (found by this module's name,
tests/doubles/scripted_replies.py): `scripted_ai.carousel_reply(count)` answers the
JSON plan of `count` slides; asked as a line list, one line off the topic. A top-up's
slide asked alone gets `scripted_ai.carousel_slide_reply(number)`: by default no JSON
(nothing usable, as a list's default line is), so a short outline still ends in the
template unless a test says otherwise."""

from __future__ import annotations

import re
from typing import Any

from tests.doubles.scripted_replies import ScriptedReply, asked_count, plan_reply

# "a carousel of 4 slides": how many slides the outline asks for.
SLIDES_ASKED = re.compile(r"\b(\d+) slides\b")
# "Write slide 5 of a LinkedIn carousel": which slide a top-up asks for alone.
SLIDE_ASKED = re.compile(r"\bWrite slide (\d+)\b")
NO_SLIDE = "A good hook names a tension your reader already feels."


# "Lesson 3", not "Point 3": a title of the prompt's own words ("each make one point")
# is an echo of it, not a slide (drafting.echo).
def one_slide(number: int) -> dict[str, str]:
    """A slide asked alone, as a capable model answers it."""
    return {
        "title": f"Lesson {number}",
        "text": f"The text of slide {number}.",
        "image_prompt": f"An illustration for slide {number}",
    }


def carousel_outline(count: int) -> dict[str, Any]:
    return {
        "name": "Ship weekly",
        "caption": "Small teams ship weekly.\n\nHere is how, in a few slides.",
        "slides": [
            {
                "title": f"Lesson {n}",
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
    ScriptedReply(
        "carousel_slide",
        lambda call, knob: knob(asked_count(call, SLIDE_ASKED)),
        knob="carousel_slide_reply",
        default=lambda _number: NO_SLIDE,
    ),
)
