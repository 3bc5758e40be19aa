"""Writing one run's variation with the model, and judging it (checks.py).

The model is asked once per attempt; what it gives is cleaned as every post is
(drafting.writing.finished_post: framing, markdown, a declined answer is no post).
Nothing stands in for a variation the model did not write: no template, no copy of
the original. A refused or failed attempt is a `Refusal` whose words the run keeps;
the preparer tries again at its next look, until the run is due.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from socialgen.ai.model import Message, TextModel, complete
from socialgen.drafting.prompts import Prompts
from socialgen.drafting.writing import finished_post
from socialgen.kit.errors import SocialgenError
from socialgen.publishing.evergreen.checks import (
    copy_problem,
    echo_problem,
    fit_problem,
    topic_problem,
)

PURPOSE = "evergreen_variation"
# One answer may take this long; a model that hangs must not hold the plan's claim.
MODEL_TIMEOUT_SECONDS = 180.0
_prompts = Prompts("socialgen.publishing.evergreen")


@dataclass(frozen=True)
class Brief:
    """What the model is given for run `number` of a post."""

    number: int
    original: str
    # (what it is, its text) of every variation written before: "run 2", ...
    earlier: Sequence[tuple[str, str]]
    networks: Sequence[str]  # where the run goes (its text must fit each)


class Refusal(Exception):
    """No variation for this attempt; `message` says why (the run keeps it)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def messages(brief: Brief) -> list[Message]:
    earlier = "\n\n".join(
        f"Version already posted ({name}):\n{text}" for name, text in brief.earlier
    )
    system = _prompts.render("variation_system", limit=str(len(brief.original)))
    user = _prompts.render(
        "variation_user", original=brief.original, earlier=earlier, number=str(brief.number + 1)
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def write_variation(model: TextModel, brief: Brief, *, max_tokens: int) -> str:
    """An acceptable variation, or a Refusal saying why there is none this time."""
    asked = messages(brief)
    try:
        raw = await asyncio.wait_for(
            complete(model, asked, max_tokens=max_tokens, purpose=PURPOSE),
            MODEL_TIMEOUT_SECONDS,
        )
        text = finished_post(raw)
    except TimeoutError:
        raise Refusal(f"the model gave no answer within {MODEL_TIMEOUT_SECONDS:.0f} s") from None
    except SocialgenError as error:  # ModelError: the provider failed, or no post
        raise Refusal(error.message) from None
    return judged(text, brief, asked[0]["content"])


def judged(text: str, brief: Brief, instructions: str) -> str:
    """`text` if it may go out as run `brief.number`, else a Refusal."""
    problem = (
        copy_problem(text, [("the original", brief.original), *brief.earlier])
        or echo_problem(text, instructions)
        or topic_problem(text, brief.original)
        or fit_problem(text, brief.original, brief.networks)
    )
    if problem is not None:
        raise Refusal(problem)
    return text
