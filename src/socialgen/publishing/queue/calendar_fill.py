"""A content calendar's drafts put in the workspace queue's slots (`calendar 7
--queue`): the calendar took the queue's next free slots as its days' times; once its
drafts are written, each goes into its day's slot (the next free one if another post
took it meanwhile)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from socialgen.kit.clock import iso, parse_iso
from socialgen.publishing.queue.service import queue_at
from socialgen.store.engine import transaction


def fill_queue(
    engine: Engine, workspace_id: str, posts: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`posts`: the calendar's items (postId, suggestedDate); returns where each went."""
    placed = []
    for post in posts:
        with transaction(engine) as session:
            queued = queue_at(
                session, workspace_id, post["postId"], parse_iso(post["suggestedDate"])
            )
            placed.append(
                {"postId": queued.post.id, "scheduledAt": iso(queued.at), "slot": queued.slot}
            )
    return placed
