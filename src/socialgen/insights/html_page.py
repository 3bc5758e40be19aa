"""`socialgen insights --html FILE`: the report as one self-contained HTML page.

Everything is in the file: styles inline, the charts as inline SVG (html_charts.py,
the heatmap's cells as a data: image inside it), no script, no font, nothing to fetch;
a Content-Security-Policy of `default-src 'none'` (inline styles and data: images
allowed) makes a browser refuse anything remote even if some text slipped through.
Every text that comes from the store or the report (post text, feature names, the time
zone ...) is escaped. The file is written atomically: a reader sees the old page or
the new one; it is private to its user (0600), as every export: it quotes posts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from socialgen.kit.control_chars import printable
from socialgen.kit.errors import SocialgenError
from socialgen.kit.local_files import PRIVATE_FILE
from socialgen.kit.local_time import local_day, local_moment

SNIPPET_CHARS = 160
TOP_POSTS = 5


class PageNotWritten(SocialgenError):
    """The page could not be written where the user asked; the message says why."""


def write_html(report: dict[str, Any], path: Path, texts: Mapping[str, str] | None = None) -> None:
    """Render `report` (the insights JSON) and write it to `path` atomically; `texts`:
    the text of each post in `top_post_ids(report)`, by id (the report has only ids)."""
    check_destination(path)  # before the charts: a typo should not wait for them
    _write_atomically(path, render_page(report, texts))


def top_post_ids(report: dict[str, Any]) -> list[str]:
    """The posts the page lists as beating their usual most, best first."""
    return [str(entry.get("postId", "")) for _, entry in _best(report.get("series") or [])]


def render_page(report: dict[str, Any], texts: Mapping[str, str] | None = None) -> str:
    from socialgen.insights.html_charts import engagement_svg, heatmap_svg

    series = list(report.get("series") or [])
    best = list(report.get("bestSlots") or [])
    engagement = engagement_svg(series)
    heatmap = heatmap_svg(list(report.get("slots") or []), best)
    sections = [
        f"<h1>What works for you</h1>\n<p class=lead>{_headline(report)}</p>",
        _section(
            "Engagement over time",
            engagement or "<p>No measured published posts yet.</p>",
            "Each dot is a post. Bottom: its engagement as a multiple of your usual at "
            "the time (the rolling baseline), on a log scale: 2x and 1/2x are as far from "
            "1x. Green dots beat your usual, red ones fell short.",
        ),
        _section(
            "Best time to post",
            (heatmap or "<p>No slots yet.</p>")
            + _slot_numbers(list(report.get("slots") or []))
            + _best_slots(best, report),
            "Each cell is a weekday and time of day in "
            f"{escape(str(report.get('timezone') or 'your time zone'))}: its score (a "
            "multiple of your average slot) and n, the posts it holds. Outlined: the best slots.",
        ),
        _section("Findings", _effects_table(report.get("findings") or [], report), ""),
        _section(
            "Inconclusive",
            _effects_table(report.get("inconclusive") or [], report),
            "Features whose interval includes no effect (1x): your data cannot tell yet.",
        ),
        _section(
            "Posts that beat their usual most", _top_posts(series, texts or {}, _zone(report)), ""
        ),
        _section("How far to trust this", _caveats(report), ""),
    ]
    generated = escape(
        local_moment(report["generatedAt"], _zone(report)) if report.get("generatedAt") else ""
    )
    workspace = escape(str(report.get("workspaceId") or ""))
    page = PAGE.format(
        body="\n".join(sections),
        footer=f"Generated {generated} for workspace {workspace} by socialgen insights.",
    )
    # A post's control characters as symbols, whichever text quoted it: the page is
    # read in terminals too (`cat`, `less`), where ESC would act.
    return printable(page)


def _day(moment: Any, zone: ZoneInfo) -> str:
    try:
        return local_day(str(moment), zone) if moment else ""
    except ValueError:
        return ""


def _headline(report: dict[str, Any]) -> str:
    if report.get("headline"):
        return escape(str(report["headline"]))
    posts = int(report.get("posts") or 0)
    days = report.get("days")
    period = f"the last {int(days)} day{'s' if days != 1 else ''}" if days else "all your history"
    text = f"{posts} measured published post{'s' if posts != 1 else ''} from {period}."
    if not report.get("enough"):
        text += (
            f" Not enough yet to name findings or best slots: "
            f"{int(report.get('needMore') or 0)} more needed "
            f"(at least {int(report.get('floor') or 0)})."
        )
    else:
        found = len(report.get("findings") or [])
        stand = "findings stand" if found != 1 else "finding stands"
        text += f" {found} {stand} out from the noise."
    return escape(text)


def _section(title: str, content: str, note: str) -> str:
    explained = f"<p class=note>{note}</p>" if note else ""
    return f"<section>\n<h2>{escape(title)}</h2>\n{explained}\n{content}\n</section>"


def _times(value: Any) -> str:
    try:
        return f"{float(value):.2f}x"
    except (TypeError, ValueError):
        return "?"


def _effects_table(effects: list[dict[str, Any]], report: dict[str, Any]) -> str:
    if not effects:
        if not report.get("enough"):
            return "<p>None shown until there is enough history.</p>"
        return "<p>None.</p>"
    rows = "".join(
        f"<tr><td>{escape(str(effect.get('feature', '')))}</td>"
        f"<td class=num>{_times(effect.get('effect'))}</td>"
        f"<td class=num>{_times(effect.get('low'))} to {_times(effect.get('high'))}</td>"
        f"<td class=num>{escape(str(effect.get('n', '')))}</td></tr>"
        for effect in effects
    )
    return (
        "<table><thead><tr><th>Feature</th><th>Effect on engagement</th>"
        "<th>Interval</th><th>n</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _best_slots(best: list[dict[str, Any]], report: dict[str, Any]) -> str:
    if not best:
        if report.get("enough"):
            return "<p>No slot stands out yet.</p>"
        return "<p>Best slots are named once there is enough history.</p>"
    items = "".join(
        f"<li>{escape(str(slot.get('weekday', '')))} "
        f"{_hour(slot.get('start'))}-{_hour(slot.get('end'))}: "
        f"{_times(slot.get('score'))} (interval {_times(slot.get('low'))} to "
        f"{_times(slot.get('high'))}, n={escape(str(slot.get('n', '')))})</li>"
        for slot in best
    )
    return f"<h3>Best slots</h3><ol>{items}</ol>"


def _slot_numbers(slots: list[dict[str, Any]]) -> str:
    """The heatmap's figures as a table (for screen readers, and to copy)."""
    if not slots:
        return ""
    rows = "".join(
        f"<tr><td>{escape(str(slot.get('weekday', '')))}</td>"
        f"<td>{_hour(slot.get('start'))}-{_hour(slot.get('end'))}</td>"
        f"<td class=num>{_times(slot.get('score'))}</td>"
        f"<td class=num>{_times(slot.get('low'))} to {_times(slot.get('high'))}</td>"
        f"<td class=num>{escape(str(slot.get('n', '')))}</td></tr>"
        for slot in slots
    )
    return (
        "<details><summary>The numbers behind the heatmap</summary><table><thead><tr>"
        "<th>Weekday</th><th>Time</th><th>Score</th><th>Interval</th><th>n</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></details>"
    )


def _hour(value: Any) -> str:
    try:
        return f"{int(value):02d}:00"
    except (TypeError, ValueError):
        return "?"


def _best(series: list[dict[str, Any]]) -> list[tuple[float, dict[str, Any]]]:
    scored = []
    for entry in series:
        try:
            scored.append((float(entry["relative"]), entry))
        except (KeyError, TypeError, ValueError):
            continue
    scored.sort(key=lambda pair: -pair[0])
    return scored[:TOP_POSTS]


def _zone(report: dict[str, Any]) -> ZoneInfo:
    """The zone the report was made in: its dates are shown in it, as its slots are."""
    try:
        return ZoneInfo(str(report.get("timezone") or "UTC"))
    except (ValueError, ZoneInfoNotFoundError):
        return ZoneInfo("UTC")


def _top_posts(series: list[dict[str, Any]], texts: Mapping[str, str], zone: ZoneInfo) -> str:
    scored = _best(series)
    if not scored:
        return "<p>None yet.</p>"
    rows = "".join(
        f"<tr><td>{escape(_day(entry.get('publishedAt'), zone))}</td>"
        f"<td>{_snippet(entry, texts)}</td>"
        f"<td class=num>{escape(str(entry.get('engagement', '')))}</td>"
        f"<td class=num>{_times(relative)}</td></tr>"
        for relative, entry in scored
    )
    return (
        f"<table><thead><tr><th>Published ({escape(zone.key)})</th><th>Post</th><th>Engagement</th>"
        f"<th>x&nbsp;usual</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _snippet(entry: dict[str, Any], texts: Mapping[str, str]) -> str:
    """The post as a person knows it, by its words: an id means nothing on a page."""
    text = texts.get(str(entry.get("postId", ""))) or entry.get("content") or ""
    text = " ".join(str(text).split())
    if not text:
        return "<em>(a post without text)</em>"
    short = text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
    return escape(short)


def _caveats(report: dict[str, Any]) -> str:
    floor = int(report.get("floor") or 0)
    posts = int(report.get("posts") or 0)
    method = (report.get("baseline") or {}).get("method")
    items = [
        f"This page reads {posts} post{'s' if posts != 1 else ''}. Below {floor} it names "
        "no findings and no best slots: too few posts make noise look like a pattern.",
        "Each post is compared with your own posts published around it (your rolling "
        "baseline), so a growing audience is not counted as a better post, and one viral "
        "post does not move the baseline much (medians, not averages).",
        "An effect is a multiplier on engagement with its interval: the range the true "
        "effect likely lies in, widened because many features are tested at once. A "
        "feature whose interval includes 1x is listed as inconclusive, not as a finding.",
        "Findings are associations in your history, not proof of cause: a post with a "
        "question hook may also differ in its topic or its week.",
        "A slot with few posts (small n) is pulled toward your overall level: three posts "
        "are weak evidence. Rarely tried slots may still turn out well.",
    ]
    if method:
        items.append(f"Baseline method: {method}.")
    items += [str(caveat) for caveat in report.get("caveats") or []]
    return "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in items) + "</ul>"


def check_destination(path: Path) -> None:
    """A clear refusal, before any work, for a page that cannot be written there."""
    if not path.parent.is_dir():
        raise PageNotWritten(
            f"Cannot write the insights page {path}: {path.parent} is not a folder"
        )
    if path.is_dir():
        raise PageNotWritten(f"Cannot write the insights page {path}: it is a folder")


def _write_atomically(path: Path, page: str) -> None:
    """A temporary file beside `path`, flushed and renamed over it."""
    check_destination(path)
    folder = path.parent
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(page)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, PRIVATE_FILE)  # it quotes posts: private, as every export
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        reason = error.strerror or str(error)
        raise PageNotWritten(f"Cannot write the insights page {path}: {reason}") from None


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>What works for you: socialgen insights</title>
<style>
body {{ font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #24292f;
  max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }}
h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }}
h2 {{ font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #d0d7de; }}
.lead {{ font-size: 1.1rem; }}
.note, footer {{ color: #57606a; font-size: .9rem; }}
svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #d0d7de;
  vertical-align: top; }}
.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
</style>
</head>
<body>
{body}
<footer><p>{footer}</p></footer>
</body>
</html>
"""
