"""A post's prompt as messages: the system prompt and the user's, from the templates.

Apart from writing.py (the stream) so that `socialgen post` can build its request
before the event models are imported (generation/head_start.py)."""

from __future__ import annotations

from socialgen.ai.model import Message
from socialgen.drafting.prompts import render


def post_system(style: str | None, *, small: bool = False) -> str:
    """The system prompt of a post. A small model gets one line: measured on
    SmolLM2-135M over 6 topics x 5 variations, the full rule list (which
    to_linkedin_text enforces anyway) drew it off topic in a quarter of its posts."""
    return render("post_system_small" if small else "post_system", style=style or "")


def post_messages(
    topic: str,
    *,
    style: str | None,
    sources: str,
    history: list[Message],
    variation: str = "",
    small: bool = False,
) -> list[Message]:
    """A small model is asked with the topic first and named again for the hook:
    it keeps to what it read first and last."""
    system = post_system(style, small=small)
    user = render(
        "post_user_small" if small else "post_user",
        topic=topic,
        variation=variation,
        sources=sources,
    )
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": user}]
