"""One post of a plan or of the store, as the exports (posts/exports.py, posts/ics.py)
see it: a module of its own so the two formats' modules import it, not each other."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import date as Day

EVENT_MINUTES = 30
ICS_PRODID = "-//socialgen//socialgen post export//EN"
SUMMARY_CHARS = 80


@dataclass(frozen=True, slots=True)
class ExportItem:
    """One post of a plan or of the store.

    `date` is the suggested, scheduled, published or created moment (UTC; a naive
    value is taken as UTC). `theme` is the plan's topic or the conversation title;
    without one, the first line of the content stands in for it where a title is
    needed. `all_day` makes the item a whole-day event dated `date`'s UTC day.
    """

    post_id: str
    content: str
    date: datetime
    status: str = "draft"
    theme: str | None = None
    variation: str | None = None
    all_day: bool = False

    @property
    def moment(self) -> datetime:
        return as_utc(self.date)

    @property
    def day(self) -> Day:
        return self.moment.date()

    @property
    def summary(self) -> str:
        """The theme, or else the first line of the post (cut at a word boundary)."""
        return one_line(self.theme or "") or first_line(self.content)


def first_line(content: str, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of a post, cut at a word boundary."""
    line = next((part.strip() for part in content.splitlines() if part.strip()), "")
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut.rstrip(" ,.;:-") + "…"


def as_utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive value is taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def one_line(text: str) -> str:
    return " ".join(text.split())
