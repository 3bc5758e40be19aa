"""History in from files: `socialgen posts import` of published posts (CSV, JSON) and of
X's archive `tweets.js`, measured once, never twice, and refused whole when a row is
wrong. Driven through the real CLI app on the test's store (SQLite or PostgreSQL)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import col
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.insights.history import PublishedPost, load_published
from socialgen.kit.clock import iso, utcnow
from socialgen.store.engine import read_session
from socialgen.store.tables import MetricSnapshot, Post, PostStatus
from tests.conftest import Store, days_ago, days_ahead
from tests.test_post_exports import csv_text, snapshot, write

runner = CliRunner()

HEADER = ["status", "publishedAt", "likes", "reposts", "comments", "impressions", "postUrl"]
HEADER += ["theme", "content"]
URL = "https://b.sky/p/1"


def row(
    date: str,
    content: str,
    likes: str = "",
    reposts: str = "",
    comments: str = "",
    impressions: str = "",
    url: str = "",
    theme: str = "",
    status: str = "published",
) -> list[str]:
    """A CSV row in HEADER's order."""
    return [status, date, likes, reposts, comments, impressions, url, theme, content]


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def answer(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def published(store: Store, workspace_id: str | None = None) -> dict[str, PublishedPost]:
    with read_session(store.engine) as session:
        found = load_published(session, workspace_id or store.workspace_id)
    return {post.content: post for post in found}


def posts_of(store: Store, workspace_id: str) -> list[Post]:
    with read_session(store.engine) as session:
        statement = sa.select(Post).where(col(Post.workspace_id) == workspace_id)
        return list(session.execute(statement).scalars())


def counts(post: PublishedPost) -> tuple[int, int, int, int | None]:
    return post.likes, post.reposts, post.comments, post.impressions


# --------------------------------------------------------------------------- CSV and JSON


def test_published_rows_become_measured_posts_with_one_snapshot(
    store: Store, tmp_path: Path
) -> None:
    csv_file = write(
        tmp_path,
        "history.csv",
        csv_text(
            HEADER,
            row("2025-01-02T10:00:00Z", "Why ship weekly?", "5", "1", "2", "100", URL),
            # No offset: UTC. No impressions: unknown, not 0. A missing count is 0.
            row("2025-01-03 10:00", "Small batches", "7", "", "0", theme="T", status="Published"),
            row("2025-01-04T10:00:00+02:00", "Zero, measured", "0", "0", "0"),
            row("", "Still a draft", status="draft"),
        ),
    )
    before = utcnow()

    data = answer(run("posts", "import", csv_file, "--json", "--ids"))

    assert {key: data[key] for key in ("imported", "scheduled", "published", "skipped")} == {
        "imported": 4,
        "scheduled": 0,
        "published": 3,
        "skipped": {"existing": 0, "duplicates": 0, "replies": 0, "retweets": 0},
    }
    history = published(store)
    assert sorted(history) == ["Small batches", "Why ship weekly?", "Zero, measured"]
    assert counts(history["Why ship weekly?"]) == (5, 1, 2, 100)
    assert counts(history["Small batches"]) == (7, 0, 0, None)
    assert counts(history["Zero, measured"]) == (0, 0, 0, None)
    assert history["Small batches"].published_at == datetime(2025, 1, 3, 10, tzinfo=UTC)
    assert history["Zero, measured"].published_at == datetime(2025, 1, 4, 8, tzinfo=UTC)
    with read_session(store.engine) as session:
        first = session.get(Post, data["postIds"][0])
        assert first is not None
        assert (first.status, first.post_url, first.likes, first.comments) == (
            PostStatus.PUBLISHED,
            "https://b.sky/p/1",
            5,
            2,
        )
        assert first.timeline_at == first.published_at
        assert first.scheduled_at is None
        taken = session.execute(
            sa.select(col(MetricSnapshot.publication_id), col(MetricSnapshot.taken_at))
        ).all()
    assert len(taken) == 3  # one snapshot a published row, none for the draft
    assert all(publication is None and moment >= before for publication, moment in taken)

    human = run("posts", "import", csv_file, "-w", store.workspace("Human")).stdout.splitlines()
    assert human == ["Imported 4 posts (0 scheduled, 3 published)"]


def test_json_counts_and_unmeasured_published_posts(store: Store, tmp_path: Path) -> None:
    items = [
        {
            "postContent": "Numbers as JSON numbers",
            "status": "published",
            "publishedAt": "2025-05-01T08:30:00.250Z",
            "likes": 12,
            "reposts": 3.0,
            "comments": "4",
            "impressions": 900,
            "postUrl": "https://mastodon.example/@me/1",
        },
        # As `posts export` writes a published post: `date`, no counts. It comes in
        # published but unmeasured, so insights leave it out.
        {"content": "Exported, never measured", "status": "published", "date": iso(days_ago(3))},
        # No status: a publishedAt says published.
        {"content": "No status column", "publishedAt": "2025-05-02T08:00:00Z", "likes": 1},
    ]
    json_file = write(tmp_path, "history.json", json.dumps({"posts": items}))

    data = answer(run("posts", "import", json_file, "--json"))

    assert (data["imported"], data["published"]) == (3, 3)
    history = published(store)
    assert list(history) == ["Numbers as JSON numbers", "No status column"]
    assert counts(history["Numbers as JSON numbers"]) == (12, 3, 4, 900)
    statuses = {p.content: p.status for p in posts_of(store, store.workspace_id)}
    assert statuses["Exported, never measured"] == PostStatus.PUBLISHED


# --------------------------------------------------------------------------- X archive


def tweet(
    id_str: str,
    text: str,
    created_at: str,
    favorites: str = "0",
    retweets: str = "0",
    **extra: Any,
) -> dict[str, Any]:
    """One item as X's archive writes it: counts as strings, entities, and so on."""
    body: dict[str, Any] = {
        "edit_info": {"initial": {"editTweetIds": [id_str], "editable": "true"}},
        "retweeted": False,
        "source": '<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>',
        "entities": {"hashtags": [], "symbols": [], "user_mentions": [], "urls": []},
        "display_text_range": ["0", str(len(text))],
        "favorite_count": favorites,
        "id_str": id_str,
        "truncated": False,
        "retweet_count": retweets,
        "id": id_str,
        "created_at": created_at,
        "favorited": False,
        "full_text": text,
        "lang": "en",
    }
    body.update(extra)
    return {"tweet": body}


def archive_text(items: list[dict[str, Any]]) -> str:
    return "window.YTD.tweets.part0 = " + json.dumps(items, indent=2)


ARCHIVE = [
    tweet(
        "1050118621198921728",
        "Ship small &amp; often: &lt;200 lines a PR &gt; one big bang",
        "Wed Oct 10 20:19:24 +0000 2018",
        favorites="42",
        retweets="7",
    ),
    tweet(
        "1050118621198921729",
        "A reply to someone",
        "Wed Oct 10 21:00:00 +0000 2018",
        favorites="3",
        in_reply_to_status_id_str="1050118621198920000",
        in_reply_to_screen_name="someone",
    ),
    tweet(
        "1050118621198921730",
        "RT @friend: Their post, not mine",
        "Thu Oct 11 08:00:00 +0000 2018",
        retweets="120",
    ),
    tweet(
        "1050118621198921731",
        "What would you ship this week?\nTell me.",
        "Fri Oct 12 07:05:00 +0200 2018",
        favorites="5",
    ),
]


def test_x_archive_is_read_by_its_content(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "tweets.js", archive_text(ARCHIVE))

    data = answer(run("posts", "import", path, "--json"))

    assert (data["imported"], data["published"]) == (2, 2)
    assert data["skipped"] == {"existing": 0, "duplicates": 0, "replies": 1, "retweets": 1}
    history = published(store)
    assert sorted(history) == [
        "Ship small & often: <200 lines a PR > one big bang",
        "What would you ship this week?\nTell me.",
    ]
    first = history["Ship small & often: <200 lines a PR > one big bang"]
    # X's archive has no reply count: comments are 0.
    assert counts(first) == (42, 7, 0, None)
    assert first.published_at == datetime(2018, 10, 10, 20, 19, 24, tzinfo=UTC)
    later = history["What would you ship this week?\nTell me."]
    assert later.published_at == datetime(2018, 10, 12, 5, 5, tzinfo=UTC)
    urls = {p.post_url for p in posts_of(store, store.workspace_id)}
    assert urls == {
        "https://x.com/i/web/status/1050118621198921728",
        "https://x.com/i/web/status/1050118621198921731",
    }

    # Any name: an archive renamed, and an older one (tweet.js, no "tweet" wrapper).
    older = "window.YTD.tweet.part0 = " + json.dumps([ARCHIVE[0]["tweet"]]) + ";\n"
    for name, text in (("my-archive.txt", archive_text(ARCHIVE)), ("old", older)):
        other = store.workspace(name)
        human = run("posts", "import", write(tmp_path, name, text), "-w", other)
        assert human.exit_code == 0, human.output
        lines = human.stdout.splitlines()
        if name == "old":
            assert lines == ["Imported 1 post (0 scheduled, 1 published)"]
        else:
            assert lines == [
                "Imported 2 posts (0 scheduled, 2 published)",
                "Skipped 1 reply, 1 retweet",
            ]


# --------------------------------------------------------------------------- duplicates


def test_importing_the_same_history_twice_creates_no_duplicate(
    store: Store, tmp_path: Path
) -> None:
    already = store.post("Published from socialgen", status=PostStatus.PUBLISHED, when=days_ago(10))
    draft = store.post("Same text as a draft row")
    rows = [
        row("2025-02-01T09:00:00Z", "One", "1", url="https://x.com/i/web/status/1"),
        row("2025-02-02T09:00:00Z", "Two", "2"),
        # Within the file: the same address, and the same content and second.
        row("2025-02-03T09:00:00Z", "One, edited", "3", url="https://x.com/i/web/status/1"),
        row("2025-02-02T09:00:00.400Z", "Two", "2"),
        # Already in the workspace, published through socialgen.
        row(iso(already.published_at) or "", already.content, "9"),
        # A draft with the same text is not a published duplicate, and drafts may repeat.
        row("2025-02-05T09:00:00Z", draft.content, "4"),
        row("", draft.content, status="draft"),
    ]
    path = write(tmp_path, "history.csv", csv_text(HEADER, *rows))

    first = answer(run("posts", "import", path, "--json"))
    second = answer(run("posts", "import", path, "--json"))
    archive = write(tmp_path, "tweets.js", archive_text(ARCHIVE))
    third = answer(run("posts", "import", archive, "--json"))
    fourth = answer(run("posts", "import", archive, "--json"))

    assert (first["imported"], first["published"], first["skipped"]["duplicates"]) == (4, 3, 3)
    assert (second["imported"], second["published"], second["skipped"]["duplicates"]) == (1, 0, 6)
    assert (third["imported"], third["skipped"]["duplicates"]) == (2, 0)
    assert (fourth["imported"], fourth["skipped"]["duplicates"]) == (0, 2)
    assert fourth["skipped"] == {"existing": 0, "duplicates": 2, "replies": 1, "retweets": 1}
    contents = sorted(p.content for p in posts_of(store, store.workspace_id))
    assert contents.count("One") == 1 and "One, edited" not in contents
    assert contents.count("Two") == 1
    assert contents.count(already.content) == 1
    assert contents.count(draft.content) == 4  # the first draft, two draft rows, one published
    assert published(store)["One"].likes == 1  # the first row wins
    human = run("posts", "import", path).stdout.splitlines()
    assert human == ["Imported 1 post (0 scheduled)", "Skipped 6 duplicates"]


# --------------------------------------------------------------------------- bad rows


def test_bad_history_rows_are_named_and_nothing_is_imported(store: Store, tmp_path: Path) -> None:
    store.post("Already here", status=PostStatus.PUBLISHED, when=days_ago(1))
    numbers = iter(range(1000))
    fine = ["published", "2025-01-02T10:00:00Z", "1", "1", "1", "", "", "", "Fine"]

    def bad_csv(**changes: str) -> str:
        row = dict(zip(HEADER, fine, strict=True))
        row.update(content="Faulty", **changes)
        # Row 2 is fine; the faulty row is row 3.
        text = csv_text(HEADER, fine, [row[name] for name in HEADER])
        return write(tmp_path, f"bad{next(numbers)}.csv", text)

    def bad_json(**changes: Any) -> str:
        item = {"content": "Faulty", "status": "published", "publishedAt": "2025-01-01"}
        item.update(changes)
        return write(tmp_path, f"bad{next(numbers)}.json", json.dumps([{"content": "Ok"}, item]))

    def bad_archive(text: str) -> str:
        return write(tmp_path, f"tweets{next(numbers)}.js", text)

    future = iso(days_ahead(2)) or ""
    wrong_date = tweet("7", "Hello", "yesterday-ish")
    many = tweet("8", "Hello", "Wed Oct 10 20:19:24 +0000 2018", favorites="many")
    cases: list[tuple[str, list[str]]] = [
        (bad_csv(likes="abc"), ["row 3", "likes must be a whole number", "'abc'"]),
        (bad_csv(reposts="-1"), ["row 3", "reposts must be a whole number", "'-1'"]),
        (bad_csv(impressions="1.5"), ["row 3", "impressions must be a whole number"]),
        (bad_csv(comments="99999999999"), ["row 3", "comments is too large"]),
        (bad_csv(publishedAt="last tuesday"), ["row 3", "publishedAt: bad date 'last tuesday'"]),
        (bad_csv(publishedAt=future), ["row 3", "publishedAt is in the future"]),
        (bad_csv(publishedAt=""), ["row 3", "a published post needs publishedAt"]),
        (bad_csv(postUrl="ftp://x/1"), ["row 3", "postUrl must be an http(s) address"]),
        (bad_json(comments=-3), ["item 2", "comments must be a whole number", "-3"]),
        (bad_json(likes=True), ["item 2", "likes must be a whole number"]),
        (bad_json(publishedAt=20250101), ["item 2", "publishedAt must be text"]),
        (bad_json(publishedAt="2025-02-30"), ["item 2", "publishedAt: bad date"]),
        (bad_archive('window.YTD.tweets.part0 = [ {"tweet": '), ["Not valid JSON", "line 1"]),
        (bad_archive("window.YTD.tweets.part0 = {}"), ["Not valid JSON", "expected '['"]),
        (
            bad_archive(archive_text([ARCHIVE[0], wrong_date])),
            ["tweet 2 (id 7)", "created_at: bad date 'yesterday-ish'"],
        ),
        (
            bad_archive(archive_text([ARCHIVE[0], many])),
            ["tweet 2 (id 8)", "likes must be a whole number", "'many'"],
        ),
        (
            bad_archive(archive_text([ARCHIVE[1], ARCHIVE[2]])),
            ["Nothing to import", "1 reply and 1 retweet skipped"],
        ),
    ]
    before = snapshot(store)

    for path, words in cases:
        result = run("posts", "import", path)
        assert result.exit_code == 1, (path, result.output)
        assert result.stdout == ""
        assert "Traceback" not in result.output
        for word in words:
            assert word in result.stderr, (path, word, result.stderr)
        assert snapshot(store) == before, path

    as_json = run("posts", "import", cases[0][0], "--json")
    assert as_json.exit_code == 1
    error = json.loads(as_json.stdout)
    assert error["success"] is False
    assert "row 3: likes must be a whole number, 0 or more (got 'abc')" in error["message"]
    assert snapshot(store) == before


def test_rows_written_in_bulk_are_stored_as_the_orm_stores_them(
    store: Store, tmp_path: Path
) -> None:
    """SQLite compares timestamps as text: an imported post's must be written exactly as
    the ORM writes them, or ranges and ordering across the two would be wrong."""
    moment = datetime(2025, 6, 1, 12, 30, 15, 250000, tzinfo=UTC)
    store.post("Through the ORM", status=PostStatus.PUBLISHED, when=moment)
    path = write(tmp_path, "one.csv", csv_text(HEADER, row(iso(moment) or "", "In bulk", "1")))
    answer(run("posts", "import", path, "--json"))

    with store.engine.connect() as connection:
        stored = dict(
            connection.exec_driver_sql(
                "SELECT content, published_at FROM post WHERE published_at IS NOT NULL"
            ).all()
        )
        timeline = connection.exec_driver_sql(
            "SELECT count(*) FROM post WHERE timeline_at = published_at"
        ).scalar()
    assert stored["In bulk"] == stored["Through the ORM"]
    assert timeline == 2
    shown = answer(run("posts", "timeline", "--json"))  # the last 90 days: neither
    assert shown["posts"] == []


def test_a_large_archive_streams_and_its_errors_keep_their_line(
    store: Store, tmp_path: Path
) -> None:
    """Read a megabyte at a time: items, multi-byte characters and error positions cut
    by a chunk's end come out whole and exact."""
    items = [
        tweet(str(10**18 + n), f"Post {n} 🚀 ünïcödé &amp; more", "Wed Oct 10 20:19:24 +0000 2018")
        for n in range(2600)
    ]
    text = "window.YTD.tweets.part0 = " + json.dumps(items, indent=2, ensure_ascii=False)
    assert len(text.encode()) > 2 * 1024 * 1024  # several chunks
    broken = text[:-2] + "\n  oops\n]"
    bad = write(tmp_path, "broken.js", broken)
    before = snapshot(store)

    refused = run("posts", "import", bad)

    line = broken.count("\n", 0, broken.index("oops")) + 1
    assert refused.exit_code == 1
    assert f"(line {line}, column 3): expected ',' or ']'" in refused.stderr
    assert snapshot(store) == before
    data = answer(run("posts", "import", write(tmp_path, "big.js", text), "--json"))
    assert data["published"] == 2600
    assert "Post 2599 🚀 ünïcödé & more" in published(store)
