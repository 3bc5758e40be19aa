"""Export of posts (iCalendar, CSV, Markdown, JSON) and import from CSV/JSON.

The pure exporters are checked against the formats' rules (RFC 5545, RFC 4180) and
read back with independent parsers (icalendar, csv, json); `socialgen posts
export/import` are driven through the real CLI app. A refused import must leave
every table as it was.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from icalendar import Calendar, Component
from sqlmodel import SQLModel, col
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.clock import iso
from socialgen.posts.exports import CSV_HEADER, ExportItem, to_csv, to_ics, to_json, to_markdown
from socialgen.store.engine import read_session
from socialgen.store.tables import Conversation, Post, PostVersion
from tests.conftest import Store, days_ago, days_ahead

runner = CliRunner()

STAMP = datetime(2026, 1, 2, 8, 0, tzinfo=UTC)
TRICKY = (
    'Shipping weekly, "no excuses"; lessons:\n'
    "1. small batches\\big wins\n\n"
    "Ünïcödé ✓ 🚀 日本語のテキスト " * 4 + "\n#buildinpublic, #ops"
)
ITEMS = [
    ExportItem(
        post_id="p1",
        content=TRICKY,
        date=datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
        status="scheduled",
        theme="Shipping, weekly; always",
        variation="story",
    ),
    ExportItem(post_id="p2", content="Short draft\nsecond line", date=datetime(2026, 1, 6, 14, 30)),
    ExportItem(
        post_id="p3",
        content="Some ```code``` in a post",
        date=datetime(2026, 1, 7, 23, 45, tzinfo=UTC),
        status="published",
        all_day=True,
    ),
]


# --------------------------------------------------------------------------- helpers


def parse_ics(text: str) -> tuple[Calendar, list[Component]]:
    """The calendar and its events, as the icalendar library reads them."""
    calendar = Calendar.from_ical(text)
    return calendar, list(calendar.walk("VEVENT"))


def physical_lines(text: str) -> list[bytes]:
    """The octets of each line as written (folded lines are not joined)."""
    data = text.encode("utf-8")
    assert data.endswith(b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # CRLF only
    assert b"\r" not in data.replace(b"\r\n", b"")
    return data[:-2].split(b"\r\n")


def assert_folded_per_rfc5545(text: str) -> None:
    """Lines of at most 75 octets; a continuation starts with one space; no UTF-8
    character is split across lines."""
    for line in physical_lines(text):
        assert len(line) <= 75, line
        line.decode("utf-8")


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def snapshot(store: Store) -> dict[str, list[str]]:
    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in SQLModel.metadata.sorted_tables
        }


def post_rows(store: Store, workspace_id: str) -> list[Post]:
    with read_session(store.engine) as session:
        statement = sa.select(Post).where(col(Post.workspace_id) == workspace_id)
        return list(session.execute(statement).scalars())


def imported(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def csv_text(*rows: list[str]) -> str:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


# --------------------------------------------------------------------------- iCalendar


def test_ics_is_valid_rfc5545() -> None:
    text = to_ics(ITEMS, calendar_name="Plan, Q1; 2026", stamp=STAMP)

    physical = physical_lines(text)
    assert [line for line in physical if line.startswith(b" ")], "the long text must be folded"
    assert_folded_per_rfc5545(text)
    assert physical[:6] == [
        b"BEGIN:VCALENDAR",
        b"VERSION:2.0",
        b"PRODID:-//socialgen//socialgen post export//EN",
        b"CALSCALE:GREGORIAN",
        b"METHOD:PUBLISH",
        b"X-WR-CALNAME:Plan\\, Q1\\; 2026",
    ]
    assert physical[-1] == b"END:VCALENDAR"
    assert text.count("BEGIN:VEVENT\r\n") == text.count("END:VEVENT\r\n") == 3

    calendar, events = parse_ics(text)
    assert (calendar["VERSION"], calendar["METHOD"]) == ("2.0", "PUBLISH")
    # icalendar reads X-WR-CALNAME as an unknown property (its TEXT left escaped),
    # so the escaped line above is what shows the name was written right.
    for item, event in zip(ITEMS, events, strict=True):
        assert event["UID"] == f"{item.post_id}@socialgen"
        assert event.decoded("DTSTAMP") == STAMP
        assert event["DESCRIPTION"] == item.content
        assert event["TRANSP"] == "TRANSPARENT"
        assert [str(c) for c in event["CATEGORIES"].cats] == [item.status]
    first, second, third = events
    assert first.decoded("DTSTART") == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert first.decoded("DTEND") == datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
    assert "DTSTART:20260105T090000Z\r\n" in text  # UTC as `Z`, no TZID
    assert first["SUMMARY"] == "Shipping, weekly; always"
    assert first["STATUS"] == "CONFIRMED"
    # A naive date is UTC; without a theme the first line is the summary.
    assert second.decoded("DTSTART") == datetime(2026, 1, 6, 14, 30, tzinfo=UTC)
    assert second.decoded("DTEND") == datetime(2026, 1, 6, 15, 0, tzinfo=UTC)
    assert second["SUMMARY"] == "Short draft"
    assert second["STATUS"] == "TENTATIVE"
    # All day: VALUE=DATE, the end is exclusive.
    assert third.decoded("DTSTART") == date(2026, 1, 7)
    assert third.decoded("DTEND") == date(2026, 1, 8)
    assert third["DTSTART"].params["VALUE"] == third["DTEND"].params["VALUE"] == "DATE"
    assert not isinstance(third.decoded("DTSTART"), datetime)


def test_ics_text_survives_a_round_trip_and_folds() -> None:
    texts = {
        "a\\b;c,d\ne\r\nf\rg": "a\\b;c,d\ne\nf\ng",  # any line ending becomes a newline
        "tab\tok, bell\x07 gone": "tab\tok, bell gone",  # TEXT allows no control but HTAB
        "C:\\Notes \\N \\n \\\\": "C:\\Notes \\N \\n \\\\",  # a backslash is never a line break
        "X" * 75: "X" * 75,
        # 74 ASCII octets then a 4-octet emoji: folding never splits a character.
        "D" * 74 + "🚀" + "é" * 80: "D" * 74 + "🚀" + "é" * 80,
    }
    items = [
        ExportItem(post_id=f"p{n}", content=content, date=STAMP, theme=content)
        for n, content in enumerate(texts)
    ]
    text = to_ics(items, calendar_name="x", stamp=STAMP)

    assert_folded_per_rfc5545(text)
    _, events = parse_ics(text)
    assert [e["DESCRIPTION"] for e in events] == list(texts.values())
    # The summary is the theme on one line.
    assert [e["SUMMARY"] for e in events] == [" ".join(t.split()) for t in texts.values()]

    _, events = parse_ics(to_ics([ITEMS[0], ITEMS[0]], calendar_name="x", stamp=STAMP))
    assert [e["UID"] for e in events] == ["p1@socialgen", "p1-2@socialgen"]
    empty = to_ics([], calendar_name="Empty", stamp=STAMP)
    assert empty.count("VEVENT") == 0
    assert parse_ics(empty)[1] == []


# --------------------------------------------------------------------------- CSV, Markdown, JSON


def test_csv_round_trips_through_the_csv_module() -> None:
    text = to_csv(ITEMS)

    assert text.startswith("date,theme,status,post_id,content\r\n")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == list(CSV_HEADER)
    assert rows[1:] == [
        ["2026-01-05T09:00:00.000Z", "Shipping, weekly; always", "scheduled", "p1", TRICKY],
        ["2026-01-06T14:30:00.000Z", "", "draft", "p2", "Short draft\nsecond line"],
        ["2026-01-07", "", "published", "p3", "Some ```code``` in a post"],
    ]
    assert to_csv([]) == "date,theme,status,post_id,content\r\n"


def test_markdown_and_json() -> None:
    markdown = to_markdown(ITEMS, title="Content plan\nQ1")

    assert markdown.startswith("# Content plan Q1\n")
    assert "## 2026-01-05 09:00 UTC · Shipping, weekly; always\n" in markdown
    assert f"\n```text\n{TRICKY}\n```\n" in markdown
    assert "id: `p1` · status: scheduled · variation: story" in markdown
    assert "## 2026-01-06 14:30 UTC · Short draft\n" in markdown
    # In a heading the backticks are text, escaped; in the fenced block, verbatim.
    assert "## 2026-01-07 · Some \\`\\`\\`code\\`\\`\\` in a post\n" in markdown
    assert "\n````text\nSome ```code``` in a post\n````\n" in markdown  # a longer fence
    assert "No posts." in to_markdown([], title="Empty")

    data = json.loads(to_json(ITEMS))
    assert data["posts"][0] == {
        "postId": "p1",
        "date": "2026-01-05T09:00:00.000Z",
        "theme": "Shipping, weekly; always",
        "status": "scheduled",
        "variation": "story",
        "content": TRICKY,
        # A plan's item has none of a stored post's fields: null, and no media.
        **dict.fromkeys(
            ["postType", "createdAt", "scheduledAt", "publishedAt", "postUrl", "socialAccount"]
        ),
        **dict.fromkeys(["likes", "reposts", "comments", "impressions"]),
        "media": False,
    }
    assert [p["date"] for p in data["posts"][1:]] == ["2026-01-06T14:30:00.000Z", "2026-01-07"]
    assert json.loads(to_json([])) == {"posts": []}


# --------------------------------------------------------------------------- socialgen posts export


def test_export_command_formats_and_filters(store: Store, tmp_path: Path) -> None:
    draft = store.post("Old draft, with a comma", when=days_ago(3))
    scheduled = store.post("Planned\npost", status="scheduled", when=days_ahead(5))
    published = store.post("Out there", status="published", when=days_ago(100))
    store.post("Not ours", workspace_id=store.workspace("Other"))
    newest_first = [scheduled.id, draft.id, published.id]

    as_json = run("posts", "export")  # json is the default
    assert as_json.exit_code == 0, as_json.output
    posts = json.loads(as_json.stdout)["posts"]
    assert [p["postId"] for p in posts] == newest_first  # all posts, not a 90-day window
    assert [p["date"] for p in posts] == [
        iso(scheduled.scheduled_at),
        iso(draft.created_at),
        iso(published.published_at),
    ]
    assert posts[0]["content"] == "Planned\npost"
    assert posts[0]["theme"] == "Planned"  # the conversation title

    as_csv = run("posts", "export", "--format", "csv")
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout, newline="")))
    assert [(r["post_id"], r["status"], r["content"]) for r in rows] == [
        (scheduled.id, "scheduled", "Planned\npost"),
        (draft.id, "draft", "Old draft, with a comma"),
        (published.id, "published", "Out there"),
    ]

    as_md = run("posts", "export", "-f", "md", "--status", "draft", "--status", "published")
    assert as_md.exit_code == 0, as_md.output
    assert as_md.stdout.startswith("# Posts of ")
    assert draft.id in as_md.stdout and published.id in as_md.stdout
    assert scheduled.id not in as_md.stdout

    target = tmp_path / "plan.ics"
    as_ics = run("posts", "export", "--format", "ics", "--output", str(target))
    assert as_ics.exit_code == 0, as_ics.output
    assert as_ics.stdout.strip() == f"Exported 3 posts to {target}"
    raw = target.read_bytes()
    assert raw.startswith(b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    _, events = parse_ics(raw.decode("utf-8"))
    assert [e["UID"] for e in events] == [f"{i}@socialgen" for i in newest_first]
    assert events[0]["DESCRIPTION"] == "Planned\npost"
    assert scheduled.scheduled_at is not None
    # iCalendar times have whole seconds.
    assert events[0].decoded("DTSTART") == scheduled.scheduled_at.replace(microsecond=0)

    refused = run("posts", "export", "--format", "pdf")
    assert refused.exit_code == 2
    assert "pdf" in refused.output
    unwritable = run("posts", "export", "-o", str(tmp_path / "missing" / "plan.json"))
    assert unwritable.exit_code == 1
    assert "Cannot write" in unwritable.stderr


# --------------------------------------------------------------------------- socialgen posts import


def test_import_csv_and_json(store: Store, tmp_path: Path) -> None:
    future = iso(days_ahead(3)) or ""
    csv_file = write(
        tmp_path,
        "plan.csv",
        "\ufeff"
        + csv_text(
            ["Date", "Theme", "STATUS", "post_id", "content", "extra"],
            ["", "Habits", "", "ignored", "Small batches,\nbig wins", "x"],
            [future, "", "scheduled", "", 'Quote "this"', ""],
            [future, "", "draft", "", "A draft's date is not kept", ""],
            ["", "", "", "", "", ""],  # a blank row is skipped
        ),
    )

    counts = imported(run("posts", "import", csv_file, "--json"))
    no_skips = {"existing": 0, "duplicates": 0, "replies": 0, "retweets": 0}
    assert counts == {
        "imported": 3,
        "scheduled": 1,
        "published": 0,
        "updated": 0,
        "skipped": no_skips,
    }
    assert "postIds" not in counts  # ids only when asked for
    data = imported(
        run("posts", "import", csv_file, "--json", "--ids", "-w", store.workspace("Ids"))
    )

    assert (data["imported"], data["scheduled"]) == (3, 1)
    with read_session(store.engine) as session:
        posts = [session.get(Post, post_id) for post_id in data["postIds"]]
        first = posts[0]
        assert first is not None
        conversation = session.get(Conversation, first.conversation_id)
        versions = session.execute(
            sa.select(col(PostVersion.source)).where(col(PostVersion.post_id) == first.id)
        ).all()
    assert [(p.content, p.status) for p in posts if p is not None] == [
        ("Small batches,\nbig wins", "draft"),
        ('Quote "this"', "scheduled"),
        ("A draft's date is not kept", "draft"),
    ]
    assert posts[1] is not None and iso(posts[1].scheduled_at) == future
    assert posts[2] is not None and posts[2].scheduled_at is None
    assert conversation is not None and conversation.title == "Habits"
    assert [v.source for v in versions] == ["import"]

    json_file = write(
        tmp_path,
        "plan.json",
        json.dumps(
            [
                {"postContent": "From the API shape", "scheduledAt": future, "status": "scheduled"},
                {"content": "  Trimmed  ", "theme": None, "unknown": 1},
            ]
        ),
    )
    human = run("posts", "import", json_file)
    assert human.exit_code == 0, human.output
    assert human.stdout.strip().splitlines() == ["Imported 2 posts (1 scheduled)"]
    other = store.workspace("Listed")
    listed = run("posts", "import", json_file, "--ids", "-w", other).stdout.strip().splitlines()
    assert listed[0] == "Imported 2 posts (1 scheduled)"
    assert {p.id for p in post_rows(store, other)} == set(listed[1:])
    assert len(listed) == 3
    wrapped = write(tmp_path, "wrapped.json", json.dumps({"posts": [{"content": "Wrapped"}]}))
    assert imported(run("posts", "import", wrapped, "--json"))["imported"] == 1

    contents = {p.content for p in post_rows(store, store.workspace_id)}
    assert {"From the API shape", "Trimmed", "Wrapped"} <= contents
    assert len(contents) == 6


def test_import_refuses_bad_files_and_imports_nothing(store: Store, tmp_path: Path) -> None:
    store.post("Already here")
    past = iso(days_ago(1)) or ""
    header = ["date", "theme", "status", "post_id", "content"]

    numbers = iter(range(1000))

    def bad_csv(*row: str) -> str:
        # Row 2 is fine; the faulty row is row 3, and nothing may be imported.
        text = csv_text(header, ["", "", "", "", "Fine"], list(row))
        return write(tmp_path, f"bad{next(numbers)}.csv", text)

    def bad_json(item: Any) -> str:
        text = json.dumps([{"content": "Fine"}, item])
        return write(tmp_path, f"bad{next(numbers)}.json", text)

    cases: list[tuple[str, list[str]]] = [
        (bad_csv("", "A theme", "", "", "  "), ["row 3", "Content is required"]),
        (bad_csv("", "", "", "", "x" * 3001), ["row 3", "exceeds the character limit of 3000"]),
        (bad_csv("next tuesday", "", "", "", "Hi"), ["row 3", "bad date 'next tuesday'"]),
        (bad_csv("", "", "published", "", "Hi"), ["row 3", "published post needs publishedAt"]),
        (bad_csv("", "", "later", "", "Hi"), ["row 3", "unknown status 'later'"]),
        (bad_csv("", "", "scheduled", "", "Hi"), ["row 3", "scheduled post needs a date"]),
        (bad_csv(past, "", "scheduled", "", "Hi"), ["row 3", "needs a future date"]),
        (bad_json({"theme": "no content"}), ["item 2", "Content is required"]),
        (bad_json({"content": "Hi", "date": "2026-13-01"}), ["item 2", "bad date"]),
        (bad_json({"content": "Hi", "status": "sent"}), ["item 2", "unknown status 'sent'"]),
        (bad_json({"content": 42}), ["item 2", "content must be text"]),
        (bad_json("just text"), ["item 2", "expected an object"]),
        (write(tmp_path, "a.json", "[{"), ["Not valid JSON", "line 1"]),
        (write(tmp_path, "b.json", '{"content": "x"}'), ["must hold a list of posts"]),
        (write(tmp_path, "c.json", "[]"), ["Nothing to import", "c.json has no posts"]),
        (write(tmp_path, "d.csv", ""), ["Nothing to import"]),
        (write(tmp_path, "e.csv", "title,body\r\nx,y\r\n"), ["no content column"]),
        (write(tmp_path, "f.csv", 'content\r\n"unclosed\r\n'), ["Not a valid CSV file"]),
        (write(tmp_path, "latin.csv", "content\nCaf\xe9\n".encode("latin-1")), ["not UTF-8"]),
        (str(tmp_path / "missing.csv"), ["Cannot read", "missing.csv"]),
        (str(tmp_path), ["Cannot import", "unknown file type"]),
        (write(tmp_path, "plan.txt", "content\nHi\n"), ["plan.txt", "use a .csv or .json"]),
    ]
    (tmp_path / "dir.csv").mkdir()
    cases.append((str(tmp_path / "dir.csv"), ["not a regular file", "dir.csv"]))
    two_bad = csv_text(
        header, ["", "t", "", "", ""], ["", "", "", "", "Fine"], ["x", "", "", "", "A"]
    )
    cases.append(
        (
            write(tmp_path, "two.csv", two_bad),
            ["Nothing imported from two.csv (2 invalid rows)", "row 2", "row 4"],
        )
    )
    before = snapshot(store)

    for path, words in cases:
        text_result = run("posts", "import", path)
        assert text_result.exit_code == 1, (path, text_result.output)
        assert text_result.stdout == ""
        assert "Traceback" not in text_result.output
        for word in words:
            assert word in text_result.stderr, (path, word, text_result.stderr)
        assert snapshot(store) == before, path

    as_json = run(
        "posts", "import", write(tmp_path, "j.csv", "content,status\nHi,sent\n"), "--json"
    )
    assert as_json.exit_code == 1
    error = json.loads(as_json.stdout)
    assert error["success"] is False
    assert "row 2: unknown status 'sent'" in error["message"]
    assert snapshot(store) == before


def test_a_large_import_goes_in_whole_or_not_at_all(store: Store, tmp_path: Path) -> None:
    from socialgen.kit.errors import BadRequest
    from socialgen.posts.imports import INSERT_BATCH_ROWS, import_posts, parse_import
    from socialgen.store.engine import transaction

    count = INSERT_BATCH_ROWS * 2 + 7  # three batches
    soon = days_ahead(1)
    rows = [["", f"Theme {n}", "", "", f"Post number {n}"] for n in range(count - 1)]
    rows.append([iso(soon) or "", "", "scheduled", "", "The last one"])
    path = Path(write(tmp_path, "many.csv", csv_text(list(CSV_HEADER), *rows)))
    parsed = parse_import(path)
    before = snapshot(store)

    # The last row's date passes between the check and the insert: two batches are in
    # by then, and the transaction takes them back.
    later = soon + timedelta(minutes=1)
    with (
        pytest.raises(BadRequest, match=f"Nothing imported: row {count + 1}: "),
        transaction(store.engine) as session,
    ):
        import_posts(session, store.workspace_id, parsed, now=later)
    assert snapshot(store) == before

    data = imported(run("posts", "import", str(path), "--json"))
    assert (data["imported"], data["scheduled"], data["published"]) == (count, 1, 0)
    with read_session(store.engine) as session:
        for table in (Post, PostVersion, Conversation):
            assert session.scalar(sa.select(sa.func.count()).select_from(table)) == count
        titles = session.scalars(sa.select(col(Conversation.title))).all()
    assert "Theme 4000" in titles and "The last one" in titles
    newest = json.loads(run("posts", "recent", "--json", "--limit", "2").stdout)["posts"]
    # Scheduled ahead first, then the file's last draft: rows keep the file's order.
    assert [post["postContent"] for post in newest] == ["The last one", f"Post number {count - 2}"]


def test_export_then_import_round_trip(store: Store, tmp_path: Path) -> None:
    contents = [
        'Line one\nline two, with "quotes" and a comma\n\n— ünïcödé 🚀 #tags',
        "Second; with a backslash \\ and a tab\there",
        "x" * 3000,
    ]
    store.post(contents[0])
    scheduled = store.post(contents[1], status="scheduled", when=days_ahead(4))
    store.post(contents[2], when=days_ago(2))

    for fmt in ("csv", "json"):
        target = tmp_path / f"all.{fmt}"
        exported = run("posts", "export", "--format", fmt, "-o", str(target))
        assert exported.exit_code == 0, exported.output
        workspace = store.workspace(f"Copy {fmt}")

        data = imported(run("posts", "import", str(target), "-w", workspace, "--json"))

        assert data["imported"] == 3
        copies = {p.content: p for p in post_rows(store, workspace)}
        assert sorted(copies) == sorted(contents)
        copy = copies[contents[1]]
        # Exports carry milliseconds, as every socialgen timestamp does.
        assert (copy.status, iso(copy.scheduled_at)) == ("scheduled", iso(scheduled.scheduled_at))
        assert {copies[c].status for c in (contents[0], contents[2])} == {"draft"}


def test_an_export_read_back_creates_no_duplicates(store: Store, tmp_path: Path) -> None:
    draft = store.post("A draft to keep")
    scheduled = store.post("Planned", status="scheduled", when=days_ahead(4))
    published = store.post("Out there", status="published", when=days_ago(10))
    before = snapshot(store)

    for fmt in ("csv", "json"):
        target = tmp_path / f"all.{fmt}"
        assert run("posts", "export", "-f", fmt, "-o", str(target)).exit_code == 0
        data = imported(run("posts", "import", str(target), "--json"))
        assert (data["imported"], data["updated"], data["skipped"]["existing"]) == (0, 0, 3)
        human = run("posts", "import", str(target))
        assert human.stdout.splitlines()[:2] == [
            "Imported 0 posts (0 scheduled)",
            "Skipped 3 posts already here",
        ]
        assert "Pass --update" in human.stderr  # piped: the hint is a note, on stderr
    assert snapshot(store) == before  # nothing created, nothing touched

    # The file edited by hand: --update replaces the content, with a new version.
    target = tmp_path / "edited.json"
    posts = json.loads(run("posts", "export").stdout)["posts"]
    for post in posts:
        if post["postId"] == draft.id:
            post["content"], post["theme"] = "A draft, reworded", "Reworded"
        post["postId"] = post["postId"].upper()  # any case, as a person may retype it
    target.write_text(json.dumps({"posts": posts}), encoding="utf-8")
    assert imported(run("posts", "import", str(target), "--json"))["skipped"]["existing"] == 3
    data = imported(run("posts", "import", str(target), "--update", "--json"))
    assert (data["imported"], data["updated"], data["skipped"]["existing"]) == (0, 1, 2)
    rows = {post.id: post for post in post_rows(store, store.workspace_id)}
    assert len(rows) == 3
    assert rows[draft.id].content == "A draft, reworded"
    assert rows[scheduled.id].content == "Planned" and rows[published.id].content == "Out there"
    with read_session(store.engine) as session:
        sources = session.execute(
            sa.select(col(PostVersion.source))
            .where(col(PostVersion.post_id) == draft.id)
            .order_by(col(PostVersion.version))
        ).all()
        conversation = session.get(Conversation, rows[draft.id].conversation_id)
    assert [row.source for row in sources][-1] == "import"
    assert conversation is not None and conversation.title == "Reworded"

    # A published post's text cannot change: named, and nothing imported.
    for post in posts:
        if post["postId"].lower() == published.id:
            post["content"] = "Rewritten history"
    posts.append({"content": "A new one"})
    target.write_text(json.dumps({"posts": posts}), encoding="utf-8")
    before = snapshot(store)
    refused = run("posts", "import", str(target), "--update")
    assert refused.exit_code == 1
    assert f"post {published.id} is published, its content cannot change" in refused.stderr
    assert snapshot(store) == before


def test_an_export_read_back_after_its_time_passed_is_still_skipped(
    store: Store, tmp_path: Path
) -> None:
    """The export's scheduled post went out meanwhile: its row's date is past, but the
    row is that post, so it is skipped; the same row without an id is refused."""
    done = store.post("Went out at nine", status="published", when=days_ago(1))
    past = iso(days_ago(1)) or ""
    header = ["date", "theme", "status", "post_id", "content"]
    named = write(
        tmp_path, "old.csv", csv_text(header, [past, "", "scheduled", done.id, "Went out at nine"])
    )
    unnamed = write(tmp_path, "new.csv", csv_text(header, [past, "", "scheduled", "", "Too late"]))
    before = snapshot(store)

    data = imported(run("posts", "import", named, "--json"))
    refused = run("posts", "import", unnamed)

    assert (data["imported"], data["skipped"]["existing"]) == (0, 1)
    stranger = write(
        tmp_path, "stranger.csv", csv_text(header, [past, "", "scheduled", "ab" * 16, "New"])
    )
    also_refused = run("posts", "import", stranger)

    assert refused.exit_code == 1
    assert "a scheduled post needs a future date" in refused.stderr
    assert also_refused.exit_code == 1  # an id nobody has: a new post, and too late
    assert "row 2: The scheduled time must be in the future" in also_refused.stderr
    assert snapshot(store) == before


def test_an_export_imported_elsewhere_twice_is_one_copy(store: Store, tmp_path: Path) -> None:
    store.post("First")
    store.post("Second", status="scheduled", when=days_ahead(2))
    target = tmp_path / "all.csv"
    assert run("posts", "export", "-f", "csv", "-o", str(target)).exit_code == 0
    other = store.workspace("Copy")

    first = imported(run("posts", "import", str(target), "-w", other, "--json"))
    again = imported(run("posts", "import", str(target), "-w", other, "--json"))

    assert (first["imported"], first["skipped"]["existing"]) == (2, 0)
    assert (again["imported"], again["skipped"]["existing"]) == (0, 2)
    assert sorted(p.content for p in post_rows(store, other)) == ["First", "Second"]
    assert len(post_rows(store, store.workspace_id)) == 2  # the original's ids untouched


def test_dates_are_utc_whatever_the_offset() -> None:
    local = datetime(2026, 3, 1, 10, 0, tzinfo=UTC).astimezone(timezone(timedelta(hours=-5)))
    item = ExportItem(post_id="p", content="c", date=local)
    text = to_ics([item], calendar_name="x", stamp=local)
    _, [event] = parse_ics(text)
    assert event.decoded("DTSTART") == event.decoded("DTSTAMP") == local
    assert "DTSTART:20260301T100000Z\r\n" in text and "DTSTAMP:20260301T100000Z\r\n" in text
    assert json.loads(to_json([item]))["posts"][0]["date"] == "2026-03-01T10:00:00.000Z"
