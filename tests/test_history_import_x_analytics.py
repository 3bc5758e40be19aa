"""History in from X's analytics exports (CSV): `socialgen posts import` recognises
the content export and the older tweet activity export by their header, takes the
time from each post's id, skips replies, never imports a post twice (an archive of the
same posts included), and refuses a bad row whole. Driven through the real CLI app on
the test's store (SQLite or PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from socialgen.posts.x_analytics import SNOWFLAKE_EPOCH
from tests.conftest import Store
from tests.test_history_import import (
    ARCHIVE,
    answer,
    archive_text,
    counts,
    posts_of,
    published,
    run,
)
from tests.test_post_exports import csv_text, write

# The header of X's content export (x.com analytics, "Export data"), as X writes it.
CONTENT_HEADER = [
    "Post id",
    "Date",
    "Post text",
    "Post Link",
    "Impressions",
    "Likes",
    "Engagements",
    "Bookmarks",
    "Shares",
    "New follows",
    "Replies",
    "Reposts",
    "Profile visits",
    "Detail Expands",
    "URL Clicks",
    "Hashtag Clicks",
    "Permalink Clicks",
]
# The older tweet activity export's first columns (analytics.twitter.com).
ACTIVITY_HEADER = [
    "Tweet id",
    "Tweet permalink",
    "Tweet text",
    "time",
    "impressions",
    "engagements",
    "engagement rate",
    "retweets",
    "replies",
    "likes",
    "user profile clicks",
]

# X's own documentation shows this id with created_at "Wed Oct 10 20:19:24 +0000
# 2018" (tests/test_history_import.py's archive has it too): the time is in the id.
KNOWN_ID = "1050118621198921728"


def post_id_at(moment: datetime, sequence: int = 0) -> str:
    """The id X gives a post published at `moment` (its snowflake)."""
    milliseconds = round((moment - SNOWFLAKE_EPOCH).total_seconds() * 1000)
    return str((milliseconds << 22) + sequence)


def content_row(
    post_id: str, text: str, impressions: str, likes: str, replies: str, reposts: str
) -> list[str]:
    """A content-export row: the numbers this import reads, the others as X writes."""
    link = f"https://x.com/me/status/{post_id}"
    day = "Wed, Oct 10, 2018"
    return [post_id, day, text, link, impressions, likes, "0", "0", "0", "0", replies, reposts]


def test_the_content_export_is_read_by_its_header(store: Store, tmp_path: Path) -> None:
    later = post_id_at(datetime(2018, 10, 12, 5, 5, 0, 250000, tzinfo=UTC))
    rows = [
        content_row(KNOWN_ID, "Ship small & often", "1,234", "42", "3", "7"),
        content_row(
            post_id_at(datetime(2018, 10, 11, tzinfo=UTC)), "@friend thanks!", "90", "1", "0", "0"
        ),
        content_row(later, "What would you ship this week?\nTell me.", "800", "5", "1", "0"),
    ]
    path = write(tmp_path, "account_analytics_content_2018.csv", csv_text(CONTENT_HEADER, *rows))

    data = answer(run("posts", "import", path, "--json"))

    assert (data["imported"], data["published"]) == (2, 2)
    assert data["skipped"] == {"existing": 0, "duplicates": 0, "replies": 1, "retweets": 0}
    history = published(store)
    first = history["Ship small & often"]
    # Replies count as comments; impressions come in ("1,234" as X may write it).
    assert counts(first) == (42, 7, 3, 1234)
    # The export gives only the day; the id gives the moment, here as X's docs have it.
    assert first.published_at.replace(microsecond=0) == datetime(
        2018, 10, 10, 20, 19, 24, tzinfo=UTC
    )
    assert history["What would you ship this week?\nTell me."].published_at == datetime(
        2018, 10, 12, 5, 5, 0, 250000, tzinfo=UTC
    )
    # The archive's address, whatever link the export wrote: one post per post.
    urls = {p.post_url for p in posts_of(store, store.workspace_id)}
    assert urls == {f"https://x.com/i/web/status/{KNOWN_ID}", f"https://x.com/i/web/status/{later}"}

    human = run("posts", "import", path).stdout.splitlines()
    assert human == ["Imported 0 posts (0 scheduled)", "Skipped 2 duplicates, 1 reply"]


def test_an_export_and_an_archive_of_the_same_posts_make_one_post_each(
    store: Store, tmp_path: Path
) -> None:
    archive_ids = [item["tweet"]["id_str"] for item in ARCHIVE]
    export = write(
        tmp_path,
        "export.csv",
        csv_text(
            CONTENT_HEADER,
            content_row(archive_ids[0], "Ship small & often", "500", "42", "2", "7"),
            content_row(archive_ids[3], "What would you ship this week?", "80", "5", "0", "0"),
        ),
    )
    archive = write(tmp_path, "tweets.js", archive_text(ARCHIVE))

    assert answer(run("posts", "import", export, "--json"))["imported"] == 2
    again = answer(run("posts", "import", archive, "--json"))

    assert (again["imported"], again["skipped"]["duplicates"]) == (0, 2)
    assert len(posts_of(store, store.workspace_id)) == 2


def test_the_tweet_activity_export_writes_counts_with_a_decimal_point(
    store: Store, tmp_path: Path
) -> None:
    rows = [
        # As analytics.twitter.com wrote them: counts "3.0", the time to the minute.
        [
            KNOWN_ID,
            "https://twitter.com/me/status/1",
            "Ship small",
            "2018-10-10 20:19 +0000",
            "900.0",
            "30.0",
            "0.03",
            "2.0",
            "1.0",
            "12.0",
            "4.0",
        ],
        # An id from before 2010 holds no time: the time column is read instead.
        [
            "20",
            "https://twitter.com/jack/status/20",
            "just setting up my twttr",
            "2006-03-21 20:50 +0000",
            "10.0",
            "1.0",
            "0.1",
            "0.0",
            "0.0",
            "3.0",
            "0.0",
        ],
        [
            "1050118621198921999",
            "https://twitter.com/me/status/2",
            "@someone right",
            "2018-10-10 21:00 +0000",
            "5.0",
            "1.0",
            "0.2",
            "0.0",
            "0.0",
            "1.0",
            "0.0",
        ],
    ]
    path = write(
        tmp_path,
        "tweet_activity_metrics_me_20181001_20181101_en.csv",
        csv_text(ACTIVITY_HEADER, *rows),
    )

    data = answer(run("posts", "import", path, "--json"))

    assert (data["published"], data["skipped"]["replies"]) == (2, 1)
    history = published(store)
    assert counts(history["Ship small"]) == (12, 2, 1, 900)
    setting_up = history["just setting up my twttr"]
    assert counts(setting_up) == (3, 0, 0, 10)
    assert setting_up.published_at == datetime(2006, 3, 21, 20, 50, tzinfo=UTC)


def test_bad_export_rows_are_named_and_nothing_is_imported(store: Store, tmp_path: Path) -> None:
    fine = content_row(KNOWN_ID, "Fine", "10", "1", "0", "0")
    future = post_id_at(datetime(2030, 1, 1, tzinfo=UTC))
    cases = {
        "likes": (
            content_row(KNOWN_ID, "Faulty", "10", "many", "0", "0"),
            "row 3: likes must be a whole number, 0 or more (got 'many')",
        ),
        "id": (
            content_row("abc", "Faulty", "10", "1", "0", "0"),
            "row 3: X analytics export: post id 'abc' is not an X post id",
        ),
        "future": (
            content_row(future, "Faulty", "10", "1", "0", "0"),
            "row 3: publishedAt is in the future (2030-01-01T00:00:00.000Z)",
        ),
    }
    for name, (faulty, message) in cases.items():
        path = write(tmp_path, f"{name}.csv", csv_text(CONTENT_HEADER, fine, faulty))
        result = run("posts", "import", path)
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split()), (name, result.output)
        assert "Traceback" not in result.output
    assert posts_of(store, store.workspace_id) == []

    # An export of replies only has nothing to import, and says what it skipped.
    replies = write(
        tmp_path,
        "replies.csv",
        csv_text(CONTENT_HEADER, content_row(KNOWN_ID, "@a hi", "1", "0", "0", "0")),
    )
    result = run("posts", "import", replies)
    assert result.exit_code == 1
    assert (
        "Nothing to import: replies.csv has no posts (1 reply and 0 retweets skipped)"
        in " ".join(result.output.split())
    )


def test_the_exports_html_entities_are_decoded(store: Store, tmp_path: Path) -> None:
    # A real tweet activity export writes "&amp;" and "&gt;" in its texts, as the
    # archive does: the post is what the audience read.
    row = content_row(KNOWN_ID, "Tests &amp; types &gt; hope", "10", "1", "0", "0")
    path = write(tmp_path, "export.csv", csv_text(CONTENT_HEADER, row))

    answer(run("posts", "import", path, "--json"))

    assert list(published(store)) == ["Tests & types > hope"]
