"""The time a post is scheduled for: an ISO 8601 moment, or "best", the next free
moment of a best slot chosen from the workspace's own history (insights.suggest).

The HTTP API and MCP read a time without an offset as UTC (SPEC.md); the CLI reads it
as a person means it, in their zone (`parse_local_at`): the `timezone` setting, else
the system's, and its reply names the zone it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlmodel import Session

from socialgen.kit.clock import DateOutOfRange, in_range, parse_iso
from socialgen.kit.errors import BadRequest

BEST = "best"


def parse_at(text: str) -> datetime | None:
    """The moment `text` names, or None for "best" (decided with the store open)."""
    if text.strip().lower() == BEST:
        return None
    try:
        return parse_iso(text)
    except DateOutOfRange as error:
        raise BadRequest(str(error)) from None
    except ValueError:
        raise BadRequest(
            f'Not an ISO 8601 time: {text!r} (e.g. 2026-12-01T09:00:00Z, or "best")'
        ) from None


@dataclass(frozen=True)
class LocalAt:
    moment: datetime | None  # UTC; None for "best"
    zone: str | None  # the zone a time without an offset was read in; None otherwise


def parse_local_at(text: str, setting: str | None) -> LocalAt:
    """parse_at for a person: `2026-12-01T09:00` is 09:00 in the `timezone` setting's
    zone, else the system's; a time with an offset (or Z) is that moment."""
    from socialgen.config.zone import resolve_zone

    if text.strip().lower() == BEST:
        return LocalAt(None, None)
    moment = parse_at(text)  # a bad time is refused in the same words
    naive = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if naive.tzinfo is not None:
        return LocalAt(moment, None)
    zone = resolve_zone(None, setting)
    try:
        moment = in_range(naive.replace(tzinfo=zone).astimezone(UTC), text.strip())
    except (DateOutOfRange, OverflowError):
        raise BadRequest(str(DateOutOfRange(text.strip()))) from None
    return LocalAt(moment, zone.key)


def resolve_at(
    session: Session, workspace_id: str, post_id: str, at: datetime | None, tz: str | None
) -> datetime:
    """`at`, or for "best" (None) the best free moment: the post must exist first, and
    a workspace with too little history is told how many more posts it needs."""
    if at is not None:
        return at
    from socialgen.insights.suggest import best_time
    from socialgen.posts.service import get_post

    get_post(session, workspace_id, post_id)
    return best_time(session, workspace_id, tz, post_id=post_id)
