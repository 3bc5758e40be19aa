"""What a post listing keeps: statuses, a time range and search words (`posts list`,
the listings' query parameters, MCP's search_posts).

The time range is on the post's timeline time (posts.md: published time, scheduled
time, or last edit for a draft), the moment the listings sort by, so a range stays one
indexed scan. Search words are letters and digits, each matching the start of a word
of the post's text, all of them required, in any case: the same on SQLite (FTS5) and
PostgreSQL (to_tsvector 'simple'), whose queries are built here from checked words
alone, so nothing a user types reaches either query language.

Standard library only: the CLI's quick read path (posts.quick_listing) uses it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any

from socialgen.kit.clock import DateOutOfRange, in_range, iso
from socialgen.kit.errors import BadRequest
from socialgen.posts.views import stored_moment

STATUSES = ("draft", "scheduled", "published")
TIMELINE_STATUSES = ("scheduled", "published")
MAX_SEARCH_CHARS = 200
MAX_SEARCH_WORDS = 16
# Letters and digits: FTS5's unicode61 and PostgreSQL's parser both split on the rest.
_WORD = re.compile(r"[^\W_]+")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class PostFilter:
    statuses: tuple[str, ...] = ()  # empty: every status
    since: datetime | None = None  # aware UTC, inclusive
    until: datetime | None = None  # aware UTC, inclusive
    words: tuple[str, ...] = ()  # lower case, letters and digits; empty: no search

    @property
    def narrows(self) -> bool:
        """Whether it leaves any post out (a listing says "no post matches" then)."""
        return bool(self.statuses or self.since or self.until or self.words)

    def keeps_only(self, statuses: tuple[str, ...]) -> PostFilter:
        """This filter within `statuses` too (the timeline has no drafts)."""
        kept = tuple(s for s in (self.statuses or STATUSES) if s in statuses)
        # Nothing in common: a status no post has, so nothing is listed.
        return PostFilter(kept or ("none",), self.since, self.until, self.words)

    def fts5_query(self) -> str:
        """FTS5: every word as a prefix (`"ship"* "week"*` is an AND)."""
        return " ".join(f'"{word}"*' for word in self.words)

    def tsquery(self) -> str:
        """PostgreSQL's to_tsquery: every word as a prefix, all of them."""
        return " & ".join(f"{word}:*" for word in self.words)


NO_FILTER = PostFilter()


def parse_statuses(values: Sequence[str] | None) -> tuple[str, ...]:
    """Statuses given once each or comma-separated (`draft,scheduled`); empty: all."""
    statuses: list[str] = []
    for value in values or []:
        for part in value.split(","):
            status = part.strip().lower()
            if not status:
                continue
            if status not in STATUSES:
                raise BadRequest(f"status must be draft, scheduled or published, not {part!r}")
            if status not in statuses:
                statuses.append(status)
    return tuple(statuses)


def search_words(text: str | None) -> tuple[str, ...]:
    """The words of a search; () for none. Text without a letter or digit is refused
    (it would match everything or nothing, never what was meant)."""
    if text is None:
        return ()
    if len(text) > MAX_SEARCH_CHARS:
        raise BadRequest(f"search text is too long: at most {MAX_SEARCH_CHARS} characters")
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))
    if not words:
        raise BadRequest(f"search text has no word to look for: {text!r}")
    if len(words) > MAX_SEARCH_WORDS:
        raise BadRequest(f"search text has too many words: at most {MAX_SEARCH_WORDS}")
    return tuple(words)


def parse_bound(
    text: str | None, name: str, zone: tzinfo | None = UTC, *, end: bool
) -> datetime | None:
    """`since` or `until` as an aware UTC moment. A date alone is its whole day: from
    its start (since) or to its end (until); a time without an offset is read in
    `zone` (the API: UTC), or with None in the system's local time (the C library's,
    TZ included, with the daylight saving time of that date)."""
    if text is None:
        return None
    shown = text.strip()
    try:
        if _DATE.match(shown):
            day = datetime.fromisoformat(shown).date()
            local = datetime.combine(day, time.max if end else time.min)
        else:
            local = datetime.fromisoformat(shown.replace("Z", "+00:00").replace("z", "+00:00"))
        if local.tzinfo is None and zone is not None:
            local = local.replace(tzinfo=zone)
        return in_range(local.astimezone(UTC), shown)  # a naive `local`: the system's time
    except (DateOutOfRange, OverflowError):
        raise BadRequest(str(DateOutOfRange(shown))) from None
    except ValueError:
        raise BadRequest(
            f"{name} is not an ISO 8601 date or time: {text!r} (e.g. 2026-01-31 or "
            "2026-01-31T09:00:00Z)"
        ) from None


def make_filter(
    statuses: Sequence[str] | None = None,
    since: str | None = None,
    until: str | None = None,
    search: str | None = None,
    zone: tzinfo | None = UTC,
) -> PostFilter:
    """A filter from what a person or a client typed, every part checked."""
    start = parse_bound(since, "since", zone, end=False)
    stop = parse_bound(until, "until", zone, end=True)
    if start is not None and stop is not None and stop < start:
        raise BadRequest("until is before since: nothing can be listed")
    return PostFilter(parse_statuses(statuses), start, stop, search_words(search))


def in_window(where: PostFilter, now: datetime, days: int) -> PostFilter:
    """`where` with SPEC.md's window of `days` days as its start when it names none."""
    if where.since is not None:
        return where
    return replace(where, since=now - timedelta(days=days))


def date_range(where: PostFilter, now: datetime, earliest: Any, latest: Any) -> dict[str, str]:
    """A listing's dateRange: from the filter's start (else the earliest post kept, or
    now when none is) to its end (else now, or the furthest scheduled post when one
    lies ahead). `earliest` and `latest` are timeline times as stored."""
    start = where.since or (stored_moment(earliest) if earliest is not None else now)
    end = where.until or max(now, stored_moment(latest) if latest is not None else now)
    return {"from": iso(start), "to": iso(end)}
