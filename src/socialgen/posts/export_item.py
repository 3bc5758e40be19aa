"""One post of a plan or of the store, as the exports (posts/exports.py, posts/ics.py)
see it: a module of its own so the two formats' modules import it, not each other.

A plan's item is a date, a status and a text. A stored post's item carries every field
the post has besides (its times, address, account, counts and media flag), so that the
CSV and JSON exports are a backup `posts import` reads back whole."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import date as Day

EVENT_MINUTES = 30
ICS_PRODID = "-//socialgen//socialgen post export//EN"
SUMMARY_CHARS = 80


@dataclass(frozen=True, slots=True)
class Counts:
    """The counts the store holds for a post: the newest reading of each place it was
    read from (each publication, an import), summed. `impressions` is None when no
    place reports them."""

    likes: int
    reposts: int
    comments: int
    impressions: int | None = None


@dataclass(frozen=True, slots=True)
class ExportItem:
    """One post of a plan or of the store.

    `date` is the suggested, scheduled, published or created moment (UTC; a naive
    value is taken as UTC). `theme` is the plan's topic or the conversation title;
    without one, the first line of the content stands in for it where a title is
    needed. `all_day` makes the item a whole-day event dated `date`'s UTC day.

    The rest is a stored post's (a plan's item leaves it empty): `counts` is None for a
    post never measured (zero likes and "never read" are not the same thing), `media`
    whether it carries a carousel, an image or an infographic.
    """

    post_id: str
    content: str
    date: datetime
    status: str = "draft"
    theme: str | None = None
    variation: str | None = None
    all_day: bool = False
    post_type: str | None = None
    created_at: datetime | None = None
    scheduled_at: datetime | None = None
    published_at: datetime | None = None
    post_url: str | None = None
    account_name: str | None = None
    account_email: str | None = None
    counts: Counts | None = None
    media: bool = False

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
