"""`socialgen calendar`: JSON lines, the live display, exports, and refusals."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from icalendar import Calendar
from sqlalchemy import func
from sqlmodel import select

from socialgen.kit.clock import parse_iso
from socialgen.store.tables import Post
from tests.conftest import Store
from tests.generation_support import SseEvent
from tests.scripted_support import ScriptedAI
from tests.test_calendar_api import check_calendar_contract


def posts(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(Post)))


def test_json_lines_and_all_three_exports(
    store: Store, scripted_ai: ScriptedAI, tmp_path: Path
) -> None:
    ics, csv, md = tmp_path / "plan.ics", tmp_path / "plan.csv", tmp_path / "plan.md"
    result = scripted_ai.invoke(
        [
            "calendar", "7", "--prompt", "shipping weekly", "--start", "2027-03-01",
            "--ics", str(ics), "--csv", str(csv), "--markdown", str(md), "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    events = [
        SseEvent(**{"name": e["event"], "data": e["data"]})
        for e in map(json.loads, result.stdout.splitlines())
    ]
    check_calendar_contract(events)
    complete = events[-1].data
    assert [p["suggestedDate"][:10] for p in complete["posts"]] == [
        f"2027-03-0{d}" for d in range(1, 8)
    ]
    assert complete["posts"][0]["suggestedDate"] == "2027-03-01T09:00:00.000Z"  # a Monday morning
    assert complete["posts"][5]["suggestedDate"] == "2027-03-06T11:00:00.000Z"  # Saturday, later
    calendar_text = ics.read_bytes().decode()
    assert "\r\n" in calendar_text
    events = Calendar.from_ical(calendar_text).walk("VEVENT")
    assert [e.decoded("DTSTART") for e in events] == [
        parse_iso(p["suggestedDate"]) for p in complete["posts"]
    ]
    assert events[0].decoded("DTSTART") == datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
    assert [e["SUMMARY"] for e in events] == [p["theme"] for p in complete["posts"]]
    assert [e["DESCRIPTION"] for e in events] == [p["content"] for p in complete["posts"]]
    assert [e["UID"] for e in events] == [f"{p['postId']}@socialgen" for p in complete["posts"]]
    assert csv.read_text().count("Idea ") == 7
    assert "Idea 7" in md.read_text()
    # Private, as every export: the plan's posts are not yet published.
    assert [stat.S_IMODE(path.stat().st_mode) for path in (ics, csv, md)] == [0o600] * 3
    assert posts(store) == 7


def test_the_live_display_for_a_person(store: Store, scripted_ai: ScriptedAI) -> None:
    result = scripted_ai.invoke(["calendar", "7", "--prompt", "remote work"])
    assert result.exit_code == 0, result.output
    assert "7-day content calendar" in result.stdout
    assert "Idea 1" in result.stdout
    assert "7 of 7 drafts saved." in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["14", "--prompt", "x"], "DAYS must be 7 or 30"),
        (["7"], "Give at least one source"),
        (["7", "--prompt", "x", "--start", "next monday"], "--start must be a date"),
        (["7", "--pdf", "/nonexistent/file.pdf"], "Cannot read /nonexistent/file.pdf"),
        (["7", "--prompt", "x", "--ics", "/nonexistent/dir/plan.ics"], "no such directory"),
        (["7", "--prompt", "x", "--style", "nope"], "Content style not found"),
        (["7", "--article", "http://10.1.2.3/post"], "not allowed"),
    ],
)
def test_refusals_exit_1_before_any_generation(
    store: Store,
    scripted_ai: ScriptedAI,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.delenv("SOCIALGEN_ALLOW_PRIVATE_URLS", raising=False)
    result = scripted_ai.invoke(["calendar", *args])
    assert result.exit_code == 1
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert scripted_ai.calls == []
    assert posts(store) == 0
