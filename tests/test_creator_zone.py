"""Issue 40, item 1: one time rule everywhere. What a person reads is in the creator's
zone and names it; `--json` stays ISO 8601 UTC; a time typed without an offset is the
creator's wall time, on import and schedule alike; an import whose offsets show
another zone says so; `insights` with no zone set says which it used."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.local_time import local_minute, local_moment, zone_header
from socialgen.posts.import_zone import zone_hint
from tests.conftest import Store
from tests.terminal_support import A_TERMINAL

runner = CliRunner()
BERLIN = ZoneInfo("Europe/Berlin")


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, list(args), env=env)


def berlin_history(path: Path, rows: int = 24, *, offsets: bool = True) -> Path:
    """Published posts a Berlin creator exported: Tuesday 08:30 local, one a month
    across two years (winter +01:00, summer +02:00), or the same wall times naive."""
    lines = ["content,status,publishedAt,likes"]
    start = datetime(2024, 1, 2, 8, 30, tzinfo=BERLIN)  # a Tuesday
    for n in range(rows):
        moment = (start + timedelta(weeks=4 * n)).replace(tzinfo=BERLIN)
        written = moment.isoformat() if offsets else moment.replace(tzinfo=None).isoformat()
        lines.append(f"Post {n} about shipping weekly,published,{written},{n}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the hint


def test_offsets_that_change_with_the_seasons_point_at_the_zone() -> None:
    samples = [
        (datetime(2025, 1, 7, 7, 30, tzinfo=UTC), timedelta(hours=1)),
        (datetime(2025, 7, 8, 6, 30, tzinfo=UTC), timedelta(hours=2)),
    ]
    hint = zone_hint(samples, ZoneInfo("UTC"))
    assert hint is not None
    assert hint.fitting[0] == "Europe/Berlin"
    assert "Europe/London" not in hint.fitting  # +00:00 / +01:00 there
    assert hint.offsets == ("+01:00", "+02:00")
    assert "socialgen config set timezone Europe/Berlin" in hint.message()
    # The zone set fits: nothing to say. Another zone with the same offsets fits too.
    assert zone_hint(samples, BERLIN) is None
    assert zone_hint(samples, ZoneInfo("Europe/Paris")) is None
    # A summer-only +01:00 is London's British Summer Time, not Berlin's.
    summer = [(datetime(2025, 7, 8, 7, 30, tzinfo=UTC), timedelta(hours=1))]
    london = zone_hint(summer, BERLIN)
    assert london is not None and london.fitting[0] == "Europe/London"


def test_no_offset_or_only_utc_offsets_say_nothing() -> None:
    assert zone_hint([], BERLIN) is None


def test_the_display_helpers_convert_and_name_the_zone() -> None:
    winter, summer = "2026-01-13T07:30:00.000Z", "2026-07-14T06:30:00.000Z"
    assert local_minute(winter, BERLIN) == "2026-01-13 08:30"
    assert local_minute(summer, BERLIN) == "2026-07-14 08:30"
    assert local_moment(winter, BERLIN) == "2026-01-13 08:30 Europe/Berlin"
    assert zone_header("when", BERLIN) == "when (Europe/Berlin)"
    assert local_minute(None, BERLIN) == ""


# --------------------------------------------------------------------------- import


def test_an_import_from_another_zone_says_so_and_how_to_set_it(
    store: Store, tmp_path: Path
) -> None:
    path = berlin_history(tmp_path / "history.csv")
    result = run("posts", "import", str(path), "--json", env={"SOCIALGEN_TIMEZONE": "UTC"})
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["timezoneHint"]["current"] == "UTC"
    assert data["timezoneHint"]["fitting"][0] == "Europe/Berlin"
    assert data["timezoneHint"]["offsets"] == ["+01:00", "+02:00"]
    # In the zone it fits, the same file is imported without a word about zones.
    again = tmp_path / "again.csv"
    again.write_text(path.read_text().replace("Post ", "Other "), encoding="utf-8")
    quiet = run("posts", "import", str(again), env={"SOCIALGEN_TIMEZONE": "Europe/Berlin"})
    assert quiet.exit_code == 0, quiet.output
    assert "timezone" not in quiet.output


def test_a_naive_date_in_a_file_is_the_creators_wall_time(store: Store, tmp_path: Path) -> None:
    path = berlin_history(tmp_path / "naive.csv", rows=2, offsets=False)
    env = {"SOCIALGEN_TIMEZONE": "Europe/Berlin"}
    assert run("posts", "import", str(path), env=env).exit_code == 0
    listed = json.loads(run("posts", "list", "--json", env=env).stdout)["posts"]
    published = sorted(post["publishedAt"] for post in listed)
    # 08:30 in Berlin in January is 07:30 UTC; in --json it stays UTC.
    assert published[0] == "2024-01-02T07:30:00.000Z"


# --------------------------------------------------------------------------- reading


def test_listings_show_the_creators_time_and_name_the_zone(store: Store, tmp_path: Path) -> None:
    path = berlin_history(tmp_path / "history.csv", rows=2)
    env = {"SOCIALGEN_TIMEZONE": "Europe/Berlin", "COLUMNS": "200", **A_TERMINAL}
    assert run("posts", "import", str(path), env=env).exit_code == 0
    table = run("posts", "list", env=env)
    assert table.exit_code == 0, table.output
    assert "when (Europe/Berlin)" in table.stdout
    assert "2024-01-02 08:30" in table.stdout  # not 07:30, the UTC wall time
    # Rows read by a program carry the offset: unambiguous and local.
    piped = run("posts", "list", env={"SOCIALGEN_TIMEZONE": "Europe/Berlin"})
    assert "2024-01-02T08:30+01:00" in piped.stdout
    # --json is untouched: UTC.
    data = json.loads(run("posts", "list", "--json", env=env).stdout)
    assert all(post["publishedAt"].endswith("Z") for post in data["posts"])


def test_scheduling_says_the_time_in_the_creators_zone(store: Store) -> None:
    env = {"SOCIALGEN_TIMEZONE": "America/New_York", **A_TERMINAL}
    post_id = store.post("A draft to schedule").id
    scheduled = run("posts", "schedule", post_id, "--at", "2030-01-15T09:00", env=env)
    assert scheduled.exit_code == 0, scheduled.output
    # 09:00 typed in New York is 14:00 UTC; the message says both, the zone named.
    assert "2030-01-15 09:00 America/New_York" in scheduled.stdout
    assert "2030-01-15T14:00:00.000Z" in scheduled.stdout
    shown = run("posts", "show", post_id, env=env)
    assert "scheduled 2030-01-15 09:00 America/New_York" in shown.stdout


def test_a_table_of_records_names_the_zone_of_its_times(store: Store) -> None:
    env = {"SOCIALGEN_TIMEZONE": "Asia/Tokyo", "COLUMNS": "200", **A_TERMINAL}
    assert run("key", "create", "--name", "ci", env=env).exit_code == 0
    listed = run("key", "list", env=env)
    assert listed.exit_code == 0, listed.output
    assert "createdAt (Asia/Tokyo)" in listed.stdout
    raw = json.loads(run("key", "list", "--json", env=env).stdout)
    assert raw[0]["createdAt"].endswith("Z")


@pytest.mark.parametrize("zone_set", [False, True])
def test_insights_says_which_zone_it_used_when_none_is_set(
    store: Store, tmp_path: Path, zone_set: bool
) -> None:
    env = {"COLUMNS": "200", **A_TERMINAL}
    if zone_set:
        env["SOCIALGEN_TIMEZONE"] = "Europe/Berlin"
    path = berlin_history(tmp_path / "history.csv", rows=3)
    assert run("posts", "import", str(path), env=env).exit_code == 0
    report = run("insights", env=env)
    assert report.exit_code == 0, report.output
    said = "No time zone is set" in report.stdout
    assert said is not zone_set
    if not zone_set:
        assert "socialgen config set timezone" in report.stdout
