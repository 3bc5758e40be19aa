"""`socialgen posts import` of a few thousand published rows, more than one batch of
bulk inserts (posts.imports.INSERT_BATCH_ROWS): every row stored as written, one
snapshot each, duplicates within the file and against the workspace skipped across
batch boundaries, and a bad last row leaving nothing at all. On the test's store
(SQLite, or PostgreSQL with SOCIALGEN_TEST_DATABASE_URL), through the real CLI app."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from socialgen.kit.clock import iso
from socialgen.kit.ids import new_ids
from socialgen.posts.imports import INSERT_BATCH_ROWS
from socialgen.store.engine import read_session
from socialgen.store.tables import Conversation, MetricSnapshot, Post, PostStatus, PostVersion
from tests.conftest import Store
from tests.test_history_import import HEADER, answer, published, row, run
from tests.test_post_exports import csv_text, snapshot, write

ROWS = INSERT_BATCH_ROWS + 1200  # two batches, the second one partial
START = datetime(2024, 3, 1, 6, 0, 0, 250000, tzinfo=UTC)


def moment(number: int) -> datetime:
    return START + timedelta(hours=number, milliseconds=number % 700)  # iso(): ms


def history_row(number: int) -> list[str]:
    """Counts that say which row they came from; every 7th row written at +02:00,
    every 3rd with an address, every 5th without impressions."""
    at = moment(number)
    date = iso(at) or ""
    if number % 7 == 0:
        date = (at + timedelta(hours=2)).replace(tzinfo=None).isoformat() + "+02:00"
    return row(
        date,
        f"Post number {number}\nsecond line",
        likes=str(number),
        reposts=str(number % 11),
        comments=str(number % 13),
        impressions="" if number % 5 == 0 else str(number * 10),
        url=f"https://b.sky/p/{number}" if number % 3 == 0 else "",
    )


def test_thousands_of_rows_are_stored_as_written_with_duplicates_skipped(
    store: Store, tmp_path: Path
) -> None:
    # Already in the workspace (unmeasured): row 9's address, row 2501's content and second.
    store.post("Mine", status=PostStatus.PUBLISHED, when=moment(0), post_url="https://b.sky/p/9")
    store.post("Post number 2501\nsecond line", status=PostStatus.PUBLISHED, when=moment(2501))
    rows = [history_row(number) for number in range(ROWS)]
    # Within the file, after the first batch: row 3's address again, and row 4's
    # content at the same second (other milliseconds).
    rows.append(row(iso(moment(5000)) or "", "New text, known address", "1", url=rows[3][6]))
    rows.append(row(iso(moment(4).replace(microsecond=900000)) or "", rows[4][8], "1"))
    rows.append(row("", "A draft among them", status="draft"))
    path = write(tmp_path, "history.csv", csv_text(HEADER, *rows))

    data = answer(run("posts", "import", path, "--json", "--ids"))

    assert (data["imported"], data["published"], data["skipped"]["duplicates"]) == (
        ROWS - 1,
        ROWS - 2,
        4,
    )
    history = published(store)  # measured posts only: none of the two already there
    assert len(history) == ROWS - 2
    for number in range(ROWS):
        content = f"Post number {number}\nsecond line"
        if number in (9, 2501):
            assert content not in history
            continue
        post = history[content]
        assert post.published_at == moment(number), number
        impressions = None if number % 5 == 0 else number * 10
        assert (post.likes, post.reposts, post.comments, post.impressions) == (
            number,
            number % 11,
            number % 13,
            impressions,
        ), number
    with read_session(store.engine) as session:
        posts = {post.id: post for post in session.scalars(sa.select(Post))}
        versions = session.execute(sa.select(PostVersion.post_id, PostVersion.content)).all()
        titles = dict(session.execute(sa.select(Conversation.id, Conversation.title)).all())
        snapshots = session.execute(sa.select(MetricSnapshot.post_id)).scalars().all()
    new = [posts[post_id] for post_id in data["postIds"]]
    assert len(new) == ROWS - 1 and new[-1].status == PostStatus.DRAFT
    assert all(post.post_url == f"https://b.sky/p/{n}" for n, post in [(3, new[3]), (6, new[6])])
    assert [post.created_at for post in new] == sorted(post.created_at for post in new)
    assert len({post.created_at for post in new}) == len(new)  # file order, no ties
    assert sorted(snapshots) == sorted(post.id for post in new[:-1])  # one a published row
    by_post = dict(versions)
    assert all(by_post[post.id] == post.content for post in new)
    assert titles[new[0].conversation_id] == "Post number 0"
    assert all(uuid.UUID(hex=post_id).version == 4 for post_id in data["postIds"])

    again = answer(run("posts", "import", path, "--json"))
    assert (again["imported"], again["skipped"]["duplicates"]) == (1, ROWS + 2)


def test_a_bad_last_row_of_thousands_leaves_nothing_imported(store: Store, tmp_path: Path) -> None:
    store.post("Already here", status=PostStatus.PUBLISHED, when=moment(1))
    rows = [history_row(number) for number in range(ROWS)]
    rows.append(row(iso(moment(ROWS)) or "", "The last one", likes="12x"))
    path = write(tmp_path, "history.csv", csv_text(HEADER, *rows))
    before = snapshot(store)

    result = run("posts", "import", path)

    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"row {ROWS + 2}: likes must be a whole number, 0 or more (got '12x')" in result.stderr
    assert snapshot(store) == before


def test_ids_drawn_in_bulk_are_distinct_uuid4() -> None:
    ids = new_ids(5000)
    assert len(set(ids)) == 5000
    for value in ids:
        parsed = uuid.UUID(hex=value)
        assert (parsed.hex, parsed.version, parsed.variant) == (value, 4, uuid.RFC_4122)
    # The variant digit keeps its random bits: all four values turn up.
    assert {value[16] for value in ids} == set("89ab")
