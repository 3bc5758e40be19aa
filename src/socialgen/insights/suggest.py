"""When the workspace's next post should go out, from its own history: what
`posts schedule --at best` and the calendar use. Below the floor of measured posts
there is no best time, and the error says how many more posts are needed."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlmodel import Session

from socialgen.config.zone import resolve_zone
from socialgen.insights import repository
from socialgen.insights.history import load_published
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest

if TYPE_CHECKING:
    import numpy as np

    from socialgen.insights.slots import SlotPosterior


def best_time(
    session: Session,
    workspace_id: str,
    tz: str | None,
    *,
    now: datetime | None = None,
    post_id: str | None = None,
    rng: np.random.Generator | None = None,
) -> datetime:
    """The next free moment (UTC) in a slot chosen by Thompson sampling; the other
    scheduled posts of the workspace (not `post_id` itself) keep their slot-days."""
    from socialgen.insights.best_time import next_best_time

    zone = resolve_zone(tz)
    slots = slots_or_refuse(session, workspace_id, tz)
    moment = now or utcnow()
    taken = repository.scheduled_times(session, workspace_id, except_post_id=post_id)
    return next_best_time(slots, zone, now=moment, taken=taken, rng=rng)


def slots_or_refuse(session: Session, workspace_id: str, tz: str | None) -> list[SlotPosterior]:
    slots = slots_if_enough(session, workspace_id, tz)
    if isinstance(slots, int):
        raise BadRequest(not_enough_message(slots))
    return slots


def slots_if_enough(
    session: Session, workspace_id: str, tz: str | None
) -> list[SlotPosterior] | int:
    """Every slot's posterior, or how many measured posts there are when too few."""
    from socialgen.insights.analysis import FLOOR, slots_of

    zone = resolve_zone(tz)
    posts = load_published(session, workspace_id)
    if len(posts) < FLOOR:
        return len(posts)
    return slots_of(posts, zone)


def not_enough_message(count: int) -> str:
    from socialgen.insights.analysis import FLOOR

    return (
        f"Not enough history for a best time: {count} measured published posts, "
        f"{FLOOR} needed ({FLOOR - count} more). Publish and read metrics "
        "(socialgen posts stats --refresh) or import your history (socialgen posts import)."
    )
