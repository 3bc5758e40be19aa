"""`posts export` is a backup: every field a post has, its counts and media flag, in
CSV and in JSON, read back by `posts import` into a fresh workspace with the same
insights; and `posts stats` shows the counts the store holds, imported ones too.

Driven through the real CLI app (in-process) on the real store of the run (SQLite, or
PostgreSQL with SOCIALGEN_TEST_DATABASE_URL).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.clock import iso, utcnow
from socialgen.posts.exports import BACKUP_HEADER
from socialgen.publishing.outbox.metrics import post_stats
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import MetricSnapshot, Post, PostStatus
from tests.conftest import Store, days_ago, days_ahead
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history

runner = CliRunner()

# What a report says about the posts, whichever workspace holds them (ids and the
# moment it was made aside).
COMPARED = ("posts", "enough", "baseline", "findings", "inconclusive", "untested", "slots")


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def ok_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def insights(workspace_id: str) -> dict[str, Any]:
    report = ok_json("insights", "-w", workspace_id, "--tz", "UTC")
    kept = {key: report[key] for key in COMPARED}
    kept["bestSlots"] = report["bestSlots"]
    kept["series"] = [
        {key: value for key, value in point.items() if key != "postId"}
        for point in report["series"]
    ]
    return kept


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_export_imported_into_a_fresh_workspace_gives_the_same_insights(
    store: Store, tmp_path: Path, fmt: str
) -> None:
    # Planted: a question hook x1.6, media x1.4, Tuesday mornings x1.8.
    put_history(store.engine, store.workspace_id, synthetic_history(300, seed=1))
    original = insights(store.workspace_id)
    found = {row["feature"] for row in original["findings"]}
    assert {"question hook", "media"} <= found  # something to keep, media among it
    target = tmp_path / f"backup.{fmt}"
    assert run("posts", "export", "-f", fmt, "-o", str(target)).exit_code == 0
    fresh = store.workspace("Restored")

    first = ok_json("posts", "import", str(target), "-w", fresh)
    again = ok_json("posts", "import", str(target), "-w", fresh)

    assert (first["imported"], first["published"]) == (300, 300)
    assert insights(fresh) == original  # same features, estimates, intervals and sizes
    # Read back again: every row is a post the workspace has, nothing doubles.
    assert (again["imported"], again["skipped"]["existing"]) == (0, 300)
    with read_session(store.engine) as session:
        count = sa.select(sa.func.count()).where(col(Post.workspace_id) == fresh)
        assert session.execute(count.select_from(Post)).scalar() == 300


def fields_store(store: Store) -> dict[str, Post]:
    """A draft from a batch, a scheduled post, and a published post with an account,
    an address, media, one publication's reading and an import's (summed)."""
    draft = store.post("A draft\nfrom a batch", variation_name="Story-driven")
    scheduled = store.post("Planned", status="scheduled", when=days_ahead(3))
    published = store.post(
        "Out there, with a picture",
        status="published",
        when=days_ago(20),
        post_url="https://example.com/p/1",
        social_account_name="Ada",
        social_account_email="ada@example.com",
        custom_image={"url": "https://example.com/i.png"},
    )
    with transaction(store.engine) as session:
        moment = utcnow()
        for likes, impressions, taken in ((1, None, moment - timedelta(days=1)), (4, 900, moment)):
            session.add(
                MetricSnapshot(
                    post_id=published.id,
                    taken_at=taken,
                    likes=likes,
                    reposts=2,
                    comments=1,
                    impressions=impressions,
                )
            )
    return {"draft": draft, "scheduled": scheduled, "published": published}


def test_the_export_carries_every_field_in_csv_and_json(store: Store) -> None:
    posts = fields_store(store)
    published = posts["published"]

    rows = list(csv.DictReader(io.StringIO(run("posts", "export", "-f", "csv").stdout)))
    data = ok_json("posts", "export")  # --json: the posts themselves, not a string

    assert list(rows[0]) == list(BACKUP_HEADER)
    by_id = {row["post_id"]: row for row in rows}
    assert by_id[published.id] | {"content": ""} == {
        "date": iso(published.published_at),
        "theme": "Out there, with a picture",
        "status": "published",
        "post_id": published.id,
        "content": "",
        "variation": "",
        "post_type": "text",
        "created_at": iso(published.created_at),
        "scheduled_at": iso(published.scheduled_at),
        "published_at": iso(published.published_at),
        "post_url": "https://example.com/p/1",
        "account_name": "Ada",
        "account_email": "ada@example.com",
        # The newest reading: a count the store holds, not the first one.
        "likes": "4",
        "reposts": "2",
        "comments": "1",
        "impressions": "900",
        "media": "true",
    }
    draft = by_id[posts["draft"].id]
    assert (draft["variation"], draft["media"]) == ("Story-driven", "false")
    # Never measured: empty counts, not zeros (a zero would be a measurement).
    assert [draft[name] for name in ("likes", "reposts", "comments", "impressions")] == [""] * 4
    assert data["format"] == "json" and data["exported"] == 3 and "content" not in data
    shown = {post["postId"]: post for post in data["posts"]}
    assert shown[published.id]["socialAccount"] == {"name": "Ada", "email": "ada@example.com"}
    assert (shown[published.id]["likes"], shown[published.id]["impressions"]) == (4, 900)
    assert shown[published.id]["media"] is True and shown[published.id]["publishedAt"]
    assert shown[posts["draft"].id]["likes"] is None
    # Other formats stay text inside the JSON.
    assert ok_json("posts", "export", "-f", "csv")["content"].startswith("date,theme,status")


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_fields_come_back_in_a_fresh_workspace(store: Store, tmp_path: Path, fmt: str) -> None:
    posts = fields_store(store)
    target = tmp_path / f"all.{fmt}"
    assert run("posts", "export", "-f", fmt, "-o", str(target)).exit_code == 0
    fresh = store.workspace("Fresh")

    assert ok_json("posts", "import", str(target), "-w", fresh)["imported"] == 3

    with read_session(store.engine) as session:
        copies = {
            post.content: post
            for post in session.execute(sa.select(Post).where(col(Post.workspace_id) == fresh))
            .scalars()
            .all()
        }
        copy = copies["Out there, with a picture"]
        stats = post_stats(session, fresh, copy.id).posts[0]
    assert (copy.status, iso(copy.published_at)) == (
        "published",
        iso(posts["published"].published_at),
    )
    assert (copy.post_url, copy.social_account_name, copy.social_account_email) == (
        "https://example.com/p/1",
        "Ada",
        "ada@example.com",
    )
    assert copy.custom_image is not None  # the media flag, without the file
    assert (stats.likes, stats.reposts, stats.comments, stats.impressions) == (4, 2, 1, 900)
    assert copies["A draft\nfrom a batch"].variation_name == "Story-driven"
    assert copies["A draft\nfrom a batch"].custom_image is None
    assert copies["Planned"].status == PostStatus.SCHEDULED


def test_posts_stats_shows_the_counts_an_import_brought(store: Store, tmp_path: Path) -> None:
    when = iso(days_ago(30))
    target = tmp_path / "history.csv"
    target.write_text(
        "status,publishedAt,likes,reposts,comments,impressions,media,content\r\n"
        f"published,{when},5,2,1,100,true,Imported with two reposts\r\n"
        f"published,{when},0,0,0,,false,Imported with nothing\r\n",
        encoding="utf-8",
    )
    assert ok_json("posts", "import", str(target))["published"] == 2

    data = ok_json("posts", "stats")  # no post id: the latest published, imported too
    human = run("posts", "stats")

    shown = {post["postId"]: post for post in data["posts"]}
    assert len(shown) == 2
    first = next(post for post in shown.values() if post["likes"] == 5)
    assert (first["reposts"], first["comments"], first["impressions"]) == (2, 1, 100)
    assert first["publishedAt"] == when and first["publications"] == []
    assert first["imported"]["reposts"] == 2 and first["imported"]["takenAt"]
    assert human.exit_code == 0, human.output
    text = " ".join(human.stdout.split())  # the terminal's wrapping undone
    assert "likes 5 · reposts 2 · comments 1 · impressions 100" in text
    assert "imported: likes 5, reposts 2, comments 1, impressions 100" in text
    assert "No published posts yet." not in text


def test_a_media_column_it_cannot_read_refuses_the_file(store: Store, tmp_path: Path) -> None:
    when = iso(days_ago(3))
    target = tmp_path / "bad.csv"
    target.write_text(
        f"status,publishedAt,likes,media,content\r\npublished,{when},1,maybe,A post\r\n",
        encoding="utf-8",
    )

    result = run("posts", "import", str(target))

    assert result.exit_code == 1
    assert "row 2: media must be true or false (got 'maybe')" in result.stderr
    assert "Traceback" not in result.stderr
    with read_session(store.engine) as session:
        assert session.execute(sa.select(sa.func.count()).select_from(Post)).scalar() == 0


def test_every_backup_cell_is_kept_from_running_as_a_formula(store: Store, tmp_path: Path) -> None:
    store.post(
        '=HYPERLINK("https://evil.example")',
        status="published",
        when=days_ago(2),
        social_account_name="@handle",
        social_account_email="-me@example.com",
    )
    target = tmp_path / "all.csv"
    assert run("posts", "export", "-f", "csv", "-o", str(target)).exit_code == 0
    (row,) = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert (row["content"], row["account_name"], row["account_email"]) == (
        '\'=HYPERLINK("https://evil.example")',
        "'@handle",
        "'-me@example.com",
    )
    fresh = store.workspace("Fresh")

    assert ok_json("posts", "import", str(target), "-w", fresh)["imported"] == 1

    with read_session(store.engine) as session:
        copy = session.execute(sa.select(Post).where(col(Post.workspace_id) == fresh)).scalar_one()
    assert (copy.content, copy.social_account_name, copy.social_account_email) == (
        '=HYPERLINK("https://evil.example")',
        "@handle",
        "-me@example.com",
    )
