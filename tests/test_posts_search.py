"""Issue 40, item 2: published posts carry their publish time in every listing, and
every post of any age is reached by status, time range and words (posts.listing with
posts.post_filter; the full-text index of migration 0009), on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic import command
from alembic.config import Config

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.posts import listing, service
from socialgen.posts.post_filter import NO_FILTER, PostFilter, make_filter
from socialgen.posts.removal import remove_post
from socialgen.posts.tables_cli import moment_of
from socialgen.store.engine import read_session, transaction
from socialgen.store.migrate import MIGRATIONS_DIR, upgrade
from socialgen.store.tables import PostStatus
from tests.conftest import Store, days_ago, days_ahead

PUBLISHED, SCHEDULED = PostStatus.PUBLISHED, PostStatus.SCHEDULED
READS = {"recent": listing.recent_posts, "timeline": listing.posts_timeline}


def read(store: Store, kind_or_now: str | datetime = "all", **options: Any) -> Any:
    """A listing (recent, timeline, or all posts), at a given `now` when one is passed."""
    kind = kind_or_now if isinstance(kind_or_now, str) else "all"
    now = None if isinstance(kind_or_now, str) else kind_or_now
    reader = READS.get(kind, listing.list_posts)
    with read_session(store.engine) as session:
        return reader(session, store.workspace_id, now, **options)


def texts(data: Any) -> list[str]:
    return [post["postContent"] for post in data["posts"]]


def found(store: Store, words: str, **options: Any) -> list[str]:
    return texts(read(store, where=make_filter(search=words), **options))


def test_published_posts_carry_their_publish_time_in_every_listing(store: Store) -> None:
    two_years = days_ago(700)
    store.post("Two years ago", status=PUBLISHED, when=two_years)
    lately = store.post("Last week", status=PUBLISHED, when=days_ago(7))
    store.post("A draft", when=days_ago(1))
    store.post("Due soon", status=SCHEDULED, when=days_ahead(3))

    for kind in ("recent", "timeline", "all"):
        for paging in ({}, {"limit": 2}):
            for post in read(store, kind, **paging)["posts"]:
                published = post["status"] == "published"
                assert (post["publishedAt"] is not None) == published, (kind, post)
    every = {post["postContent"]: post for post in read(store)["posts"]}
    assert every["Two years ago"]["publishedAt"] == iso(two_years)
    assert every["Last week"]["publishedAt"] == iso(lately.published_at)
    # The table's "when" is the publish time, not when the row was written (now).
    assert moment_of(every["Two years ago"]) == iso(two_years)
    assert every["Two years ago"]["createdAt"][:10] != iso(two_years)[:10]
    # The 90-day windows leave it out; `since` moves their start, list has no window.
    assert "Two years ago" not in texts(read(store, "recent"))
    since = PostFilter(since=days_ago(800))
    assert "Two years ago" in texts(read(store, "timeline", where=since))
    assert texts(read(store)) == ["Due soon", "A draft", "Last week", "Two years ago"]


def test_status_and_time_filters_are_inclusive_and_dated(store: Store) -> None:
    day = datetime(2025, 3, 4, tzinfo=UTC)
    store.post("first of the day", status=PUBLISHED, when=day)
    store.post("last of the day", status=PUBLISHED, when=day + timedelta(hours=23, minutes=59))
    store.post("next day", status=PUBLISHED, when=day + timedelta(days=1))
    store.post("a draft", when=day + timedelta(hours=12))
    store.post("ahead", status=SCHEDULED, when=days_ahead(5))

    whole_day = make_filter(since="2025-03-04", until="2025-03-04")
    data = read(store, where=whole_day)
    assert texts(data) == ["last of the day", "a draft", "first of the day"]
    assert data["dateRange"] == {
        "from": "2025-03-04T00:00:00.000Z",
        "to": "2025-03-04T23:59:59.999Z",
    }
    exact = make_filter(since=iso(day), until=iso(day + timedelta(days=1)))  # both ends kept
    assert texts(read(store, where=exact))[0] == "next day"
    assert texts(read(store, where=exact))[-1] == "first of the day"
    published = make_filter(["published"], until="2025-03-04T12:00:00+01:00")
    assert texts(read(store, where=published)) == ["first of the day"]
    assert texts(read(store, where=make_filter(["draft,scheduled"]))) == ["ahead", "a draft"]
    # The timeline never shows drafts, whatever is asked; an empty answer is dated too.
    nothing = read(store, "timeline", where=make_filter(["draft"]))
    assert nothing["posts"] == [] and nothing["total"] == 0
    assert nothing["dateRange"]["from"] and nothing["dateRange"]["to"]


def test_search_finds_every_word_by_its_start_in_any_case(store: Store) -> None:
    store.post("Shipping weekly changed my team", status=PUBLISHED, when=days_ago(400))
    store.post("Why we SHIP on Fridays", status=PUBLISHED, when=days_ago(3))
    cafe = store.post("Café culture, #remotework and 2026 plans", when=days_ago(2))
    quiet = store.post("Nothing to see", when=days_ago(1))
    store.post("Shipping elsewhere", workspace_id=store.workspace("Agency"))

    assert found(store, "ship") == ["Why we SHIP on Fridays", "Shipping weekly changed my team"]
    assert found(store, "FRIDAY ship!") == ["Why we SHIP on Fridays"]  # every word, any case
    assert found(store, "weekly team ship") == ["Shipping weekly changed my team"]
    assert (
        found(store, "café") == found(store, "remotework") == found(store, "2026") == [cafe.content]
    )
    assert found(store, "cafe") == []  # accents are kept, on both stores alike
    assert found(store, "hipping") == []  # a word's start, not any part of it
    # The index follows edits and deletions.
    with transaction(store.engine) as session:
        service.update_content(session, store.workspace_id, quiet.id, "Now shipping too")
    assert "Now shipping too" in found(store, "ship")
    assert found(store, "nothing") == []
    remove_post(store.engine, store.files(), store.workspace_id, quiet.id)
    assert "Now shipping too" not in found(store, "ship")
    # A post moved on the timeline is found at its new time and status.
    with transaction(store.engine) as session:
        service.schedule(session, store.workspace_id, cafe.id, days_ahead(10))
    ahead = make_filter(["scheduled"], since=iso(days_ahead(9)), search="café")
    assert texts(read(store, where=ahead)) == [cafe.content]
    assert texts(read(store, where=ahead, limit=5)) == [cafe.content]
    # With the other filters: published only, and within the 90-day window of recent.
    published_ship = make_filter(["published"], search="ship")
    assert len(texts(read(store, where=published_ship))) == 2
    assert texts(read(store, "recent", where=published_ship)) == ["Why we SHIP on Fridays"]


def test_paging_reaches_every_post_kept_once(store: Store) -> None:
    for number in range(23):
        words = "ship it" if number % 2 else "rest"
        store.post(f"{words} {number}", status=PUBLISHED, when=days_ago(40 * number + 1))
    where, now = make_filter(search="ship"), utcnow()  # one "now": dateRange's end
    whole = read(store, now, where=where)
    assert whole["total"] == 11 and "nextCursor" not in whole
    seen: list[str] = []
    cursor = None
    while True:
        page = read(store, now, where=where, limit=4, cursor=cursor)
        assert page["total"] == 11 and page["dateRange"] == whole["dateRange"]
        seen += [post["id"] for post in page["posts"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == [post["id"] for post in whole["posts"]]  # in order, none twice
    # dateRange of an open-ended list: from its earliest post kept to now.
    assert whole["dateRange"]["from"] == whole["posts"][-1]["publishedAt"]


def test_bad_filters_are_refused_in_words() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"statuses": ["posted"]}, "status must be draft, scheduled or published, not 'posted'"),
        ({"since": "yesterday"}, "since is not an ISO 8601 date or time: 'yesterday'"),
        ({"until": "2025-13-01"}, "until is not an ISO 8601 date or time"),
        ({"since": "1900-01-01"}, "outside the dates socialgen keeps"),
        ({"since": "2026-02-01", "until": "2026-01-01"}, "until is before since"),
        ({"search": "!!! ..."}, "search text has no word to look for"),
        ({"search": "x" * 201}, "at most 200 characters"),
        ({"search": " ".join(f"w{n}" for n in range(17))}, "too many words: at most 16"),
    ]
    for options, message in cases:
        with pytest.raises(BadRequest, match=message.replace("(", r"\(")):
            make_filter(**options)
    # What reaches a query language: checked words only, quoted (FTS5) or bare (tsquery).
    hostile = make_filter(search='ship" OR x*) NEAR(a:* | !b')
    assert hostile.words == ("ship", "or", "x", "near", "a", "b")
    assert hostile.fts5_query() == '"ship"* "or"* "x"* "near"* "a"* "b"*'
    assert hostile.tsquery() == "ship:* & or:* & x:* & near:* & a:* & b:*"
    assert not NO_FILTER.narrows and make_filter(["draft"]).narrows


@pytest.mark.parametrize("vacuum", [False, True])
def test_the_index_stays_right_through_migration_and_vacuum(store: Store, vacuum: bool) -> None:
    first = store.post("The first post, removed later")
    store.post("Written before the index existed: shipping")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0008")
    older = store.post("Also before it: shipping again")
    upgrade(store.engine)  # 0009 indexes the posts already there
    assert sorted(found(store, "shipping")) == sorted(
        [older.content, "Written before the index existed: shipping"]
    )
    if vacuum and store.url.startswith("sqlite"):
        remove_post(store.engine, store.files(), store.workspace_id, first.id)
        # SQLite's documentation allows VACUUM to renumber a string-keyed table's
        # rowids; the index is keyed apart from them (migration 0009), so it may.
        database = sqlite3.connect(store.home / "socialgen.db", isolation_level=None)
        database.execute("VACUUM")
        database.close()
    # Edits still land on the right post.
    with transaction(store.engine) as session:
        service.update_content(session, store.workspace_id, older.id, "Now about gardening")
    assert found(store, "shipping") == ["Written before the index existed: shipping"]
    assert found(store, "gardening") == ["Now about gardening"]
    assert found(store, "removed") == (
        [] if vacuum and store.url.startswith("sqlite") else [first.content]
    )


def test_a_moment_in_utc_is_the_same_moment_everywhere() -> None:
    zone_free = make_filter(since="2026-01-31T09:00")  # the API's rule: UTC
    assert zone_free.since == datetime.fromisoformat("2026-01-31T09:00+00:00")
    berlin = make_filter(since="2026-01-31T09:00", zone=_zone("Europe/Berlin"))
    assert berlin.since is not None and iso(berlin.since) == "2026-01-31T08:00:00.000Z"
    assert make_filter(since="2026-01-31T09:00Z", zone=_zone("Europe/Berlin")) == zone_free


def test_without_a_zone_a_time_is_the_systems_local_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI with no `timezone` setting: the system's zone, with each date's own offset.
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        summer = make_filter(since="2025-07-01T09:00", until="2025-12-01", zone=None)
        assert summer.since is not None and iso(summer.since) == "2025-07-01T07:00:00.000Z"
        assert summer.until is not None and iso(summer.until) == "2025-12-01T22:59:59.999Z"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def _zone(name: str) -> Any:
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)
