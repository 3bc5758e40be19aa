"""What a model puts around a post (`---` lines, code fences, "Here is your post:")
never reaches a saved post, whichever command wrote it: post, batch, calendar, chat.
The scripted model answers every post in such a frame; the store is read after."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlmodel import col

from socialgen.drafting.linkedin import to_linkedin_text
from socialgen.drafting.separators import strip_separators
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from tests.conftest import Store
from tests.scripted_support import POST_TEXT, ScriptedAI

FRAMES = [
    "---\n" + POST_TEXT + "\n---",
    "Here is your post:\n\n```\n" + POST_TEXT + "\n```",
    "**Sure! Here's a LinkedIn post about shipping weekly:**\n\n***\n\n" + POST_TEXT,
    "```text\n" + POST_TEXT + "\n```\n\n___",
    "Post:\n" + POST_TEXT,
]


@pytest.mark.parametrize("framed", FRAMES)
def test_the_frame_goes_and_the_post_stays(framed: str) -> None:
    assert strip_separators(framed) == POST_TEXT
    assert to_linkedin_text(framed) == to_linkedin_text(POST_TEXT)


def test_a_lead_in_on_the_posts_own_line_goes_too() -> None:
    assert strip_separators("Here is your post: We ship weekly.") == "We ship weekly."
    # Words that only look like a frame stay: a post may well start "Here is why".
    kept = "Here is why we ship weekly: nobody waits.\n\nTry it."
    assert strip_separators(kept) == kept


@pytest.mark.parametrize(
    "args",
    [
        ["post", "Why small teams ship weekly"],
        ["batch", "Why small teams ship weekly"],
        ["calendar", "7", "--prompt", "Why small teams ship weekly"],
        ["chat", "Write a post about why small teams ship weekly"],
    ],
    ids=["post", "batch", "calendar", "chat"],
)
def test_no_saved_post_keeps_the_models_frame(
    store: Store, scripted_ai: ScriptedAI, args: list[str]
) -> None:
    frames = iter(FRAMES * 10)
    scripted_ai.post_reply = lambda _call: next(frames)

    result = scripted_ai.invoke([*args, "--json"])

    assert result.exit_code == 0, result.output
    with read_session(store.engine) as session:
        contents = session.execute(
            sa.select(col(Post.content)).where(col(Post.workspace_id) == store.workspace_id)
        ).scalars()
        saved = list(contents)
    assert saved, "the command saved no post"
    for content in saved:
        assert not content.startswith(("---", "```", "Here", "Sure", "Post:")), content
        assert "```" not in content and "\n---" not in content and "___" not in content
        assert content.startswith("Small teams ship weekly")
