"""X's analytics exports, read as published rows of a CSV import.

X's analytics page exports a CSV of your posts with their numbers, impressions
included, which its archive (x_archive.py) does not have. Two layouts, recognised by
their header whatever the file is called:

- **Content export** (x.com/i/account_analytics, "Export data", 2024 on):
  `Post id,Date,Post text,Post Link,Impressions,Likes,Engagements,Bookmarks,Shares,
  New follows,Replies,Reposts,...`. `Date` is a day ("Tue, Jul 14, 2026").
- **Tweet activity export** (analytics.twitter.com, before 2024):
  `tweet_activity_metrics_*.csv` with `Tweet id,Tweet permalink,Tweet text,time,
  impressions,...,retweets,replies,likes,...`; `time` to the minute.

Each row becomes the record of a published row (posts/history_rows.py): the text
(its HTML entities decoded: the exports write `&amp;` as the archive does), likes,
reposts (retweets), comments (replies), impressions, and the post's address in the
archive's form (`https://x.com/i/web/status/ID`), so that an export and an archive
of the same posts never make two posts of one. The moment of publication is read from
the post id, an X "snowflake" that holds it to the millisecond: the content export
gives only the day, and a day is no use for the best time to post. Counts may be
written with thousands separators ("1,234") or, as the tweet activity export writes
them, with a decimal point ("3.0").

Exports list replies among your posts, with no flag: a text that opens on "@" is taken
for one and skipped, like the archive's replies (and "RT @", a retweet). A post of
your own that opens on a mention is skipped with them; X writes no other sign.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from socialgen.kit.clock import DateOutOfRange, in_range
from socialgen.kit.errors import BadRequest
from socialgen.posts.x_archive import POST_ADDRESS

# Twitter's snowflake ids: milliseconds since this moment, above 22 bits of sequence.
SNOWFLAKE_EPOCH = datetime(2010, 11, 4, 1, 42, 54, 657000, tzinfo=UTC)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_WHOLE_DECIMAL = re.compile(r"\d+\.0+")

Skip = Literal["reply", "retweet"]


@dataclass(frozen=True, slots=True)
class AnalyticsExport:
    """One export layout: the header names (lower case) each field is read from."""

    name: str
    post_id: str
    text: str
    likes: str
    reposts: str
    comments: str
    impressions: str
    time: str | None = None  # a column with the time, for posts older than snowflakes
    time_format: str | None = None


CONTENT_EXPORT = AnalyticsExport(
    "X analytics export",
    post_id="post id",
    text="post text",
    likes="likes",
    reposts="reposts",
    comments="replies",
    impressions="impressions",
)
TWEET_ACTIVITY_EXPORT = AnalyticsExport(
    "X tweet activity export",
    post_id="tweet id",
    text="tweet text",
    likes="likes",
    reposts="retweets",
    comments="replies",
    impressions="impressions",
    time="time",
    time_format="%Y-%m-%d %H:%M %z",
)


def analytics_export(columns: Sequence[str]) -> AnalyticsExport | None:
    """The export whose header this is (lower-cased names), else None: an ordinary
    import file (it has a `content` column) is never taken for one."""
    names = set(columns)
    if "content" in names or "postcontent" in names:
        return None
    for export in (CONTENT_EXPORT, TWEET_ACTIVITY_EXPORT):
        if {export.post_id, export.text} <= names:
            return export
    return None


def export_record(export: AnalyticsExport, row: Mapping[str, str]) -> dict[str, Any] | Skip:
    """The published record of one export row, or which kind of post it skips."""
    text = row.get(export.text) or ""
    if text.startswith("RT @"):
        return "retweet"
    if text.startswith("@"):
        return "reply"
    post_id = (row.get(export.post_id) or "").strip()
    return {
        "content": html.unescape(text),  # X writes &amp;, &lt;, &gt; here as in its archive
        "status": "published",
        "publishedat": _published_at(export, post_id, row),
        "likes": _count(row.get(export.likes)),
        "reposts": _count(row.get(export.reposts)),
        "comments": _count(row.get(export.comments)),
        "impressions": _count(row.get(export.impressions)),
        "posturl": POST_ADDRESS.format(post_id),
    }


def snowflake_time(post_id: str) -> datetime | None:
    """When an X post with this id was published, or None if the id holds no time
    (not a number, or an id from before November 2010)."""
    # An id is 64 bits: 20 digits at most (a longer one is no id, and int() refuses
    # more than 4,300 digits anyway).
    if not (post_id.isascii() and post_id.isdigit()) or len(post_id) > 20:
        return None
    milliseconds = int(post_id) >> 22
    if milliseconds < 86_400_000:  # a day after the epoch: an older, sequential id
        return None
    try:
        return in_range(SNOWFLAKE_EPOCH + timedelta(milliseconds=milliseconds))
    except (OverflowError, DateOutOfRange):
        return None


def _published_at(export: AnalyticsExport, post_id: str, row: Mapping[str, str]) -> str:
    moment = snowflake_time(post_id)
    if moment is None and export.time and export.time_format:
        written = (row.get(export.time) or "").strip()
        try:
            moment = in_range(datetime.strptime(written, export.time_format))
        except ValueError:  # DateOutOfRange too
            raise BadRequest(
                f"{export.name}: bad {export.time} {written!r} "
                "(expected e.g. '2021-01-31 20:56 +0000')"
            ) from None
    if moment is None:
        raise BadRequest(
            f"{export.name}: {export.post_id} {post_id!r} is not an X post id, "
            "which holds the time it was published"
        )
    return moment.isoformat()


def _count(cell: str | None) -> str | None:
    """The cell as history_rows reads counts: "1,234" as 1234 and "3.0" (the tweet
    activity export writes its counts so) as 3; anything else as written, so that a
    bad count is refused with the text the file has."""
    if cell is None:
        return None
    written = cell.strip()
    if _THOUSANDS.fullmatch(written):
        return written.replace(",", "")
    if _WHOLE_DECIMAL.fullmatch(written):
        return written.split(".")[0]
    return cell
