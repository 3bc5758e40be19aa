"""The insights charts: in the terminal (80 columns, Unicode on a terminal, ASCII in a
pipe or without colour) and as one self-contained HTML page (no network, user text
escaped, written atomically), and `emit_charts`, what `socialgen insights` does with
`--html FILE [--open]`. Reports are built by the real analysis on synthetic creators.
"""

from __future__ import annotations

import contextvars
import dataclasses
import io
import os
import re
import stat
import sys
import webbrowser
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import pytest
import typer
from rich.console import Console

from socialgen.insights.analysis import analyse
from socialgen.insights.charts_cli import OPEN_NEEDS_HTML, check_chart_options, emit_charts
from socialgen.insights.charts_terminal import print_charts
from socialgen.insights.html_page import PageNotWritten, write_html
from socialgen.insights.report import build_report
from socialgen.store.engine import read_session
from tests.conftest import Store
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history

HOSTILE = "<script>alert('x')</script><img src=https://evil.example/a.png> & more"


def report_of(posts: int, seed: int = 5) -> dict[str, Any]:
    """The report JSON as `socialgen insights --json` gives it, for a synthetic creator."""
    analysis = analyse(synthetic_history(posts, seed=seed), ZoneInfo("UTC"))
    return {
        "workspaceId": "ws-test",
        "generatedAt": "2026-06-01T08:00:00.000Z",
        "days": None,
        "timezone": "UTC",
        **analysis.view(),
    }


@pytest.fixture(scope="module")
def full_report() -> dict[str, Any]:
    return report_of(400)


def drawn(report: dict[str, Any], **console: Any) -> str:
    out = io.StringIO()
    print_charts(report, Console(file=out, width=console.pop("width", 80), **console))
    return out.getvalue()


def on_terminal(report: dict[str, Any], width: int = 80) -> str:
    return drawn(report, force_terminal=True, color_system="standard", width=width)


ANSI = re.compile(r"\x1b\[[0-9;]*m")


# --- terminal ---------------------------------------------------------------------------


def test_terminal_charts_fit_80_columns_and_star_the_best_slots(
    full_report: dict[str, Any],
) -> None:
    for width in (80, 200):
        text = ANSI.sub("", on_terminal(full_report, width))
        assert max(len(line) for line in text.splitlines()) <= 80
    assert "1x ┼───" in text and "█" in text
    for day in ("Monday", "Tuesday", "Sunday"):
        assert re.search(rf"^{day}\s", text, re.M), day
    assert text.count("★") == len(full_report["bestSlots"]) + 1  # the legend names it
    tuesday_morning = re.search(r"^Tuesday .{16}(.{16})", text, re.M)
    assert tuesday_morning is not None and "★" in tuesday_morning.group(1)  # planted slot
    assert "\x1b[" in on_terminal(full_report)  # coloured on a terminal
    narrow = ANSI.sub("", on_terminal(full_report, 6))  # cut, not broken
    assert narrow.startswith("Engage") and max(map(len, narrow.splitlines())) <= 6


@pytest.mark.parametrize(
    "console",
    [{}, {"force_terminal": True, "no_color": True}],
    ids=["a pipe", "NO_COLOR"],
)
def test_plain_ascii_when_not_a_terminal_or_without_colour(
    full_report: dict[str, Any], console: dict[str, Any]
) -> None:
    text = drawn(full_report, **console)
    assert text.isascii(), [line for line in text.splitlines() if not line.isascii()]
    assert not re.search(r"\x1b\[(?:\d+;)*[39]\d", text)  # no colour (bold may stay)
    if not console:
        assert "\x1b[" not in text
    text = ANSI.sub("", text)
    assert "1x +---" in text
    assert text.count("*") >= len(full_report["bestSlots"])
    assert max(len(line) for line in text.splitlines()) <= 80


def weekly(*multipliers: float) -> dict[str, Any]:
    """A report whose weeks (from Monday 2026-01-05) each hold one post at these
    multiples of the baseline."""
    first = datetime(2026, 1, 5, 9, tzinfo=UTC)
    series = [
        {"postId": f"p{i}", "publishedAt": (first + timedelta(weeks=i)).isoformat(),
         "engagement": 10, "baseline": 10.0, "relative": value, "score": 0.0}
        for i, value in enumerate(multipliers)
    ]  # fmt: skip
    return {"series": series, "slots": [], "bestSlots": [], "enough": True}


def test_weeks_are_drawn_on_a_log_scale_around_1x() -> None:
    rows = {}
    for line in drawn(weekly(1.0, 2.0, 4.0, 0.5, 20.0)).splitlines():
        label, axis, bars = line[:4].strip(), line[5:6], line[6:]
        if axis in "|+" and label.endswith("x"):
            rows[label] = bars.ljust(15)

    def filled(row: str, week: int) -> str:
        return rows[row][3 * week : 3 * week + 3]  # five weeks: three columns each

    assert [filled("2x", week) for week in range(5)] == ["   ", "###", "###", "   ", "###"]
    assert [filled("4x", week) for week in range(5)] == ["   ", "   ", "###", "   ", "###"]
    assert filled("8x", 4) == "^^^" and filled("8x", 2) == "   "  # 20x: off the scale
    assert filled("1/2x", 3) == "###" and filled("1/4x", 3) == "   "
    assert rows["1x"] == "-" * 15


def test_nothing_to_chart_and_not_enough_history() -> None:
    empty = drawn({"series": [], "slots": [], "bestSlots": [], "enough": False})
    assert "Engagement over time: no measured published posts yet." in empty
    assert "Best time: no weekday x time-of-day slots yet." in empty

    few = report_of(12)
    assert few["enough"] is False and few["bestSlots"] == []
    text = drawn(few)
    assert f"Not enough history to name best slots yet: {few['needMore']} more posts needed."
    assert "12 posts;" in text
    assert "*" not in text.rsplit("\n", 3)[0].split("Best time", 1)[1].replace("* = ", "")


# --- the HTML page ----------------------------------------------------------------------


class Resources(HTMLParser):
    """Every address the page's markup would make a browser fetch: attributes that
    load something, and url(...) or @import in styles (text content is not markup)."""

    LOADING: ClassVar[set[str]] = {
        *("src", "href", "xlink:href", "srcset", "action", "poster", "data", "background")
    }

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in self.LOADING and value is not None:
                self.addresses.append(value)
            if name == "style" and value:
                self.styles.append(value)
        if tag == "link":
            self.addresses.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def remote_resources(page: str) -> list[str]:
    parser = Resources()
    parser.feed(page)
    inline = ("#", "data:")  # a fragment of the page, or bytes carried in the page
    remote = [address for address in parser.addresses if not address.startswith(inline)]
    for style in parser.styles:
        remote += re.findall(r"@import|url\(\s*['\"]?\s*(?!#)[^)]*\)", style, re.I)
    return remote


def test_the_resource_check_sees_remote_references() -> None:
    """The check below is only as good as this: it must see what a browser would fetch."""
    hostile = (
        '<img src="https://x.example/a.png"><a href="//x.example">a</a>'
        '<svg><use xlink:href="http://x.example/s.svg#a"/><use xlink:href="#local"/>'
        '<image xlink:href="data:image/png;base64,AAAA"/></svg>'
        "<style>@import 'x.css'; p { background: url(http://x.example/b.png) }</style>"
        '<p style="background:url(https://x.example/c.png)">&lt;img src=https://no&gt;</p>'
    )
    assert len(remote_resources(hostile)) == 6


def hostile_report(full_report: dict[str, Any]) -> dict[str, Any]:
    report = {**full_report, "timezone": "Europe/<b>Paris</b>"}
    best = max(report["series"], key=lambda entry: entry["relative"])
    report["series"] = [
        {**entry, "content": HOSTILE} if entry is best else entry for entry in report["series"]
    ]
    report["inconclusive"] = [
        *report["inconclusive"],
        {"feature": "<i>emoji</i>", "effect": 1.1, "low": 0.8, "high": 1.5, "n": 40},
    ]
    return report


def test_the_page_is_self_contained_and_escapes_user_text(
    full_report: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "insights.html"
    write_html(hostile_report(full_report), path)
    page = path.read_text(encoding="utf-8")
    assert remote_resources(page) == []
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&lt;img src=" in page
    assert "&lt;i&gt;emoji&lt;/i&gt;" in page and "Europe/&lt;b&gt;Paris&lt;/b&gt;" in page
    # The only http left is the escaped text of the post: no namespace, font or CDN.
    assert page.count("://") == 1
    assert "default-src 'none'" in page
    assert page.count("<svg ") == 2
    for finding in full_report["findings"]:
        assert f"<td>{finding['feature']}</td>" in page
        assert f"{finding['low']:.2f}x to {finding['high']:.2f}x" in page
    numbers = page.split("The numbers behind the heatmap", 1)[1]
    for slot in full_report["slots"]:
        row = f"<tr><td>{slot['weekday']}</td><td>{slot['start']:02d}:00-{slot['end']:02d}:00"
        assert row in numbers
        assert (
            numbers.split(row, 1)[1]
            .split("</tr>", 1)[0]
            .endswith(f"<td class=num>{slot['n']}</td>")
        )
    assert "How far to trust this" in page and "400 measured published posts" in page
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it quotes posts: private


def test_the_page_before_enough_history(tmp_path: Path) -> None:
    few = report_of(12)
    path = tmp_path / "few.html"
    write_html(few, path)
    page = path.read_text(encoding="utf-8")
    assert f"{few['needMore']} more needed" in page
    assert "Best slots are named once there is enough history." in page
    empty = {"series": [], "slots": [], "findings": [], "inconclusive": [], "posts": 0}
    write_html(empty, path)
    assert "No measured published posts yet." in path.read_text(encoding="utf-8")


def test_the_page_replaces_the_old_one_whole_or_not_at_all(
    full_report: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "insights.html"
    path.write_text("old page")
    write_html(full_report, path)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert os.listdir(tmp_path) == ["insights.html"]  # no temporary left behind

    (tmp_path / "folder.html").mkdir()
    for target, reason in (
        (tmp_path / "folder.html", "it is a folder"),
        (tmp_path / "missing" / "page.html", "is not a folder"),
    ):
        with pytest.raises(PageNotWritten, match=reason) as raised:
            write_html(full_report, target)
        assert str(target) in raised.value.message
    assert sorted(os.listdir(tmp_path)) == ["folder.html", "insights.html"]
    assert os.listdir(tmp_path / "folder.html") == []


# --- emit_charts: --html FILE [--open] ---------------------------------------------------


def test_emit_charts_draws_writes_and_opens(
    full_report: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--open runs the browser the user configured ($BROWSER, as webbrowser reads it):
    here a script that records the address it was given."""
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(
        f"import sys, pathlib\npathlib.Path({str(opened)!r}).write_text(sys.argv[1])\n"
    )
    monkeypatch.setenv("BROWSER", f"{sys.executable} {browser} %s")
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER again
    monkeypatch.setattr(webbrowser, "_browsers", {})
    out = io.StringIO()
    page = tmp_path / "my page.html"
    emit_charts(full_report, console=Console(file=out, width=80), html=page, open_page=True)
    printed = out.getvalue()
    assert "Engagement vs your usual" in printed and "Best time" in printed
    assert f"Wrote the insights page to {page}" in printed
    assert opened.read_text() == page.as_uri() and "%20" in page.as_uri()
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_emit_charts_with_json_prints_nothing(
    full_report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    emit_charts(full_report, console=None, html=page, open_page=False)
    assert capsys.readouterr() == ("", "")
    assert page.exists()


@pytest.mark.parametrize("html", [None, "folder"], ids=["--open alone", "unwritable"])
def test_emit_charts_refusals_exit_1(
    full_report: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    html: str | None,
) -> None:
    target = None if html is None else tmp_path / html
    if target is not None:
        target.mkdir()
    expected = OPEN_NEEDS_HTML if target is None else f"Cannot write the insights page {target}"
    out = io.StringIO()
    # A fresh context, as a new command line has: an earlier test's `--json` run in this
    # thread leaves the CLI's JSON mode on (errors would come out as JSON).
    with pytest.raises(typer.Exit) as raised:
        contextvars.Context().run(
            emit_charts, full_report, console=Console(file=out), html=target, open_page=not html
        )
    assert raised.value.exit_code == 1
    assert out.getvalue() == ""  # refused before any chart is drawn
    assert f"Error: {expected}" in " ".join(capsys.readouterr().err.split())
    with pytest.raises(typer.Exit) as raised:  # what the command checks before its report
        contextvars.Context().run(check_chart_options, target, html is None)
    assert raised.value.exit_code == 1
    assert f"Error: {expected}" in " ".join(capsys.readouterr().err.split())


# --- end to end: a real store's report -------------------------------------------------


def test_a_stored_history_drawn_and_written(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report build_report makes from the store (as `socialgen insights` does),
    through emit_charts: both charts printed, the page written; post text never
    reaches the page unescaped."""
    posts = synthetic_history(120, seed=9)
    posts[60] = dataclasses.replace(posts[60], content=HOSTILE, likes=5000)
    put_history(store.engine, store.workspace_id, posts)
    with read_session(store.engine) as session:
        report = build_report(session, store.workspace_id, None, "Europe/Paris").json_data()
    assert report["posts"] == 120 and report["enough"] is True
    out = io.StringIO()
    page = tmp_path / "insights.html"
    emit_charts(report, console=Console(file=out, width=80), html=page, open_page=False)
    printed = out.getvalue()
    assert "120 posts;" in printed and "Best time (score vs your average, Europe/Paris)" in printed
    assert printed.count("*") >= len(report["bestSlots"]) + 1
    text = page.read_text(encoding="utf-8")
    assert remote_resources(text) == [] and "<script" not in text
    assert "120 measured published posts" in text
    assert capsys.readouterr().err == ""


def test_the_pages_headline_counts_in_words(tmp_path: Path) -> None:
    path = tmp_path / "one.html"
    one = {"series": [], "slots": [], "inconclusive": [], "posts": 1, "days": 1}
    write_html({**one, "enough": True, "findings": [{}]}, path)
    page = path.read_text(encoding="utf-8")
    assert "1 measured published post from the last 1 day. 1 finding stands out" in page
    write_html({**one, "posts": 40, "days": 7, "enough": True, "findings": [{}, {}]}, path)
    page = path.read_text(encoding="utf-8")
    assert "40 measured published posts from the last 7 days. 2 findings stand out" in page
