"""One range of dates everywhere a date comes in (kit/clock.py: 1970-01-01 to
2199-12-31, UTC): a schedule, an import row, `since`, a network's answer. Outside it,
a clear 400 (or the row's number), never a 500 or "Unexpected error"."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.kit.clock import DATE_RANGE, DateOutOfRange, parse_iso
from socialgen.publishing.networks.answers import moment_from
from socialgen.publishing.networks.base import PublishError
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from tests.conftest import LiveServer, Store

runner = CliRunner()
OUTSIDE = [
    "9999-12-31T23:00:00-05:00",  # past year 9999 once in UTC: was a 500
    "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
    "0001-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "2200-01-01T00:00:00Z",
]


@pytest.mark.parametrize("text", OUTSIDE)
def test_a_date_outside_the_range_is_refused_in_words(text: str) -> None:
    with pytest.raises(DateOutOfRange, match="outside the dates socialgen keeps"):
        parse_iso(text)


@pytest.mark.parametrize("text", ["1970-01-01T00:00:00Z", "2199-12-31T23:59:59Z", "2026-12-07"])
def test_the_ends_of_the_range_are_in_it(text: str) -> None:
    assert parse_iso(text).tzinfo is not None


@pytest.mark.parametrize("at", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00Z"])
def test_scheduling_outside_the_range_is_a_400_over_http_and_an_error_in_the_cli(
    store: Store, live_server: LiveServer, at: str
) -> None:
    draft = store.post("Far away")
    answer = httpx.post(
        f"{live_server.base_url}/api/v1/ai-conversation/post/{store.workspace_id}/{draft.id}/schedule",
        headers={"x-api-key": store.api_key()},
        json={"at": at},
    )
    assert answer.status_code == 400, answer.text
    assert DATE_RANGE in answer.json()["message"]
    shown = runner.invoke(app, ["posts", "schedule", draft.id, "--at", at])
    assert shown.exit_code != 0 and DATE_RANGE in " ".join(shown.output.split())
    assert "Traceback" not in shown.output
    with read_session(store.engine) as session:
        post = session.get(Post, draft.id)
    assert post is not None and post.scheduled_at is None  # nothing half-written


def test_an_import_row_dated_outside_the_range_is_named_and_nothing_is_imported(
    store: Store, tmp_path: Path
) -> None:
    rows = [
        {"content": "Fine", "status": "published", "publishedAt": "2025-03-01T09:00:00Z"},
        {"content": "Year one", "status": "published", "publishedAt": "0001-01-01T00:00:00Z"},
    ]
    source = tmp_path / "posts.json"
    source.write_text(json.dumps(rows))
    result = runner.invoke(app, ["posts", "import", str(source)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    said = " ".join(result.output.split())
    assert "2" in said and DATE_RANGE in said, said
    with read_session(store.engine) as session:
        assert session.exec(select(Post)).first() is None  # not even the fine row


def test_a_network_time_outside_the_range_is_not_understood() -> None:
    with pytest.raises(PublishError, match=r"not understood.*outside the dates"):
        moment_from("Mastodon", datetime(1, 1, 1, tzinfo=UTC), "the time of status 1")
    with pytest.raises(PublishError, match="not understood"):
        moment_from("Bluesky", "yesterday", "the time x was indexed")
    assert moment_from("Bluesky", "2026-01-01T00:00:00Z", "x") == datetime(2026, 1, 1, tzinfo=UTC)


def test_posts_at_both_ends_of_the_range_export_and_chart(store: Store, tmp_path: Path) -> None:
    """No date in range breaks an export, a chart or the HTML page: a published post
    on the first day and a scheduled one on the last go through each of them."""
    rows = [
        {"content": "First day", "status": "published", "publishedAt": "1970-01-01T00:00:00Z",
         "likes": 1},
        {"content": "Last day", "status": "scheduled", "date": "2199-12-31T23:59:59Z"},
    ]  # fmt: skip
    source = tmp_path / "ends.json"
    source.write_text(json.dumps(rows))
    imported = runner.invoke(app, ["posts", "import", str(source)])
    assert imported.exit_code == 0, imported.output
    for kind in ("csv", "json", "md", "ics"):
        out = tmp_path / f"export.{kind}"
        done = runner.invoke(app, ["posts", "export", "--format", kind, "-o", str(out)])
        assert done.exit_code == 0 and "Traceback" not in done.output, (kind, done.output)
        text = out.read_text()
        assert "Last day" in text and ("First day" in text or kind == "ics"), kind
    page = tmp_path / "insights.html"
    shown = runner.invoke(app, ["insights", "--html", str(page)])
    assert shown.exit_code == 0 and "Traceback" not in shown.output, shown.output
    assert page.read_text().startswith("<!")


@pytest.mark.parametrize("start", ["9999-12-30", "1900-01-01", "2199-12-30"])
def test_a_calendar_must_fall_within_the_range(store: Store, start: str) -> None:
    """--start 9999-12-30 was "Unexpected error: date value out of range"; 1900 wrote
    drafts dated 1900. The last day counts too (2199-12-30 plus 7 days is past it)."""
    result = runner.invoke(app, ["calendar", "7", "--prompt", "Ship weekly", "--start", start])
    said = " ".join(result.output.split())
    assert result.exit_code != 0 and DATE_RANGE in said and "Traceback" not in said, said
    with read_session(store.engine) as session:
        assert session.exec(select(Post)).first() is None
