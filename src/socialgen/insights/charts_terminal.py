"""The insights report as two charts a person reads in the terminal, in 80 columns:
engagement over time (each column one week's median, relative to the creator's
baseline, on a log scale around the 1x line) and the weekday x time-of-day grid (each
cell shaded by its score, with its number of posts, the best slots starred).

Unicode blocks and colour on a terminal; plain ASCII when the output is a file or a
pipe, or colour is off (NO_COLOR), so a log or a copied e-mail stays readable.
Standard library and rich only: it draws a report, it computes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from statistics import median
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

MAX_WIDTH = 80
MIN_WIDTH = 40
LEVELS = 3  # log2 units each side of the baseline: 8x above, 1/8x below
LABEL_WIDTH = 6  # "1/8x |"
# Slot scores are shrunk toward 1x, so the bands are narrow: under 0.9x, about 1x,
# above, 1.5x or more.
SHADE_EDGES = (0.9, 1.1, 1.5)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class Glyphs:
    up: str  # eighths of a cell, empty to full, for bars growing up from the baseline
    down: str  # a quarter, half and full cell hanging down from the baseline
    clipped_up: str
    clipped_down: str
    baseline: str
    axis: str
    axis_at_baseline: str
    shades: str  # four, one per band of SHADE_EDGES
    best: str
    empty_cell: str
    colour: bool


UNICODE = Glyphs(
    up=" ▁▂▃▄▅▆▇█",
    down=" ▔▀█",
    clipped_up="▲",
    clipped_down="▼",
    baseline="─",
    axis="┤",
    axis_at_baseline="┼",
    shades="░▒▓█",
    best="★",
    empty_cell="·",
    colour=True,
)
ASCII = Glyphs(
    up="    ..++#",
    down=" .+#",
    clipped_up="^",
    clipped_down="v",
    baseline="-",
    axis="|",
    axis_at_baseline="+",
    shades=".=+#",
    best="*",
    empty_cell=" ",
    colour=False,
)


def print_charts(report: dict[str, Any], console: Console) -> None:
    """Both charts of `report` (the insights JSON) on `console`."""
    glyphs = UNICODE if _fancy(console) else ASCII
    width = max(MIN_WIDTH, min(console.width, MAX_WIDTH))  # narrower: lines are cut
    for line in engagement_chart(report, glyphs, width):
        console.print(line, no_wrap=True, overflow="crop")
    console.print()
    for line in slot_grid(report, glyphs, width):
        console.print(line, no_wrap=True, overflow="crop")


def _fancy(console: Console) -> bool:
    return bool(console.is_terminal and not console.no_color and console.encoding.startswith("utf"))


# --- engagement over time ------------------------------------------------------------


def engagement_chart(report: dict[str, Any], glyphs: Glyphs, width: int) -> list[Text]:
    from rich.text import Text

    points = _points(report.get("series") or [])
    if not points:
        return [Text("Engagement over time: no measured published posts yet.")]
    columns = width - LABEL_WIDTH - 1
    first_week = _monday(points[0][0])
    weeks = (_monday(points[-1][0]) - first_week).days // 7 + 1
    per_column = math.ceil(weeks / columns)
    buckets: dict[int, list[float]] = {}
    for when, value in points:
        index = (_monday(when) - first_week).days // 7 // per_column
        buckets.setdefault(index, []).append(value)
    count = (weeks - 1) // per_column + 1
    medians = [median(buckets[i]) if i in buckets else None for i in range(count)]
    repeat = min(3, columns // count)  # a few weeks: wider bars
    span = "week" if per_column == 1 else f"{per_column} weeks"
    lines = [
        Text.assemble(
            ("Engagement vs your usual", "bold"),
            f", log scale (median per {span}; 1x = your baseline)",
        )
    ]
    for level in range(LEVELS, -LEVELS - 1, -1):
        lines.append(_chart_row(level, medians, glyphs, repeat))
    lines.append(_time_axis(first_week, count, per_column, repeat))
    best = max((m, i) for i, m in enumerate(medians) if m is not None)
    best_week = first_week + timedelta(weeks=best[1] * per_column)
    lines.append(
        Text(
            f"{len(points)} post{'s' if len(points) > 1 else ''}; best {span}: "
            f"{best_week.isoformat()}, at "
            f"{_multiplier(2 ** best[0])} your usual."
        )
    )
    for line in lines:
        line.rstrip()  # in place: no trailing blanks to copy
    return lines


def _points(series: list[dict[str, Any]]) -> list[tuple[date, float]]:
    """(day published, log2 of the multiplier), oldest first; unreadable entries skipped."""
    points = []
    for entry in series:
        try:
            when = datetime.fromisoformat(str(entry["publishedAt"])).date()
            relative = float(entry["relative"])
        except (KeyError, TypeError, ValueError):
            continue
        if relative > 0 and math.isfinite(relative):
            points.append((when, math.log2(relative)))
    return sorted(points)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _chart_row(level: int, medians: list[float | None], glyphs: Glyphs, repeat: int) -> Text:
    """One row: `level` > 0 covers (level - 1, level] log2 units above the baseline,
    `level` < 0 the same below it, 0 is the baseline itself."""
    from rich.text import Text

    label = _multiplier(2.0**level).rjust(LABEL_WIDTH - 2)
    row = Text(f"{label} {glyphs.axis_at_baseline if level == 0 else glyphs.axis}")
    for value in medians:
        if level == 0:
            row.append(glyphs.baseline * repeat, style="dim")
            continue
        if value is None or (value > 0) != (level > 0):
            row.append(" " * repeat)
            continue
        fill = min(max(abs(value) - (abs(level) - 1), 0.0), 1.0)
        if abs(level) == LEVELS and abs(value) > LEVELS:
            glyph = glyphs.clipped_up if level > 0 else glyphs.clipped_down
        elif level > 0:
            glyph = glyphs.up[round(fill * (len(glyphs.up) - 1))]
        else:
            glyph = glyphs.down[round(fill * (len(glyphs.down) - 1))]
        style = ("green" if level > 0 else "red") if glyphs.colour else ""
        row.append(glyph * repeat, style=style)
    row.rstrip()
    return row


def _time_axis(first_week: date, count: int, per_column: int, repeat: int) -> Text:
    from rich.text import Text

    start = first_week.isoformat()
    end = (first_week + timedelta(weeks=(count - 1) * per_column)).isoformat()
    room = count * repeat
    if count == 1 or room < len(start) + len(end) + 1:
        return Text(" " * (LABEL_WIDTH + 1) + start)
    return Text(" " * (LABEL_WIDTH + 1) + start + end.rjust(room - len(start)))


def _multiplier(value: float) -> str:
    """2 -> "2x", 0.5 -> "1/2x", 1.37 -> "1.4x"."""
    if value >= 1:
        return f"{value:.0f}x" if value == round(value) or value >= 10 else f"{value:.1f}x"
    inverse = 1 / value
    if abs(inverse - round(inverse)) < 1e-9:
        return f"1/{round(inverse)}x"
    return f"{value:.2f}x"


# --- weekday x time of day -----------------------------------------------------------


def slot_grid(report: dict[str, Any], glyphs: Glyphs, width: int) -> list[Text]:
    from rich.text import Text

    slots = [slot for slot in report.get("slots") or [] if _slot_key(slot) is not None]
    zone = report.get("timezone") or "your time zone"
    if not slots:
        return [Text("Best time: no weekday x time-of-day slots yet.")]
    parts = sorted({(int(slot["start"]), int(slot["end"])) for slot in slots})
    days = [day for day in WEEKDAYS if any(slot["weekday"] == day for slot in slots)]
    days += sorted({str(slot["weekday"]) for slot in slots} - set(days))
    by_cell = {_slot_key(slot): slot for slot in slots}
    best = {_slot_key(slot) for slot in report.get("bestSlots") or []}
    cell_width = max(8, min(16, (width - 10) // len(parts)))
    lines = [Text.assemble(("Best time", "bold"), f" (score vs your average, {zone})")]
    header = Text(" " * 10)
    for start, end in parts:
        header.append(f"{start:02d}-{end:02d}h".ljust(cell_width))
    header.rstrip()
    lines.append(header)
    for day in days:
        row = Text(day[:9].ljust(10))
        for start, end in parts:
            slot = by_cell.get((day, start, end))
            row.append_text(_cell(slot, (day, start, end) in best, glyphs, cell_width))
        row.rstrip()
        lines.append(row)
    shades, (low, high, top) = glyphs.shades, SHADE_EDGES
    lines.append(
        Text(
            f"{shades[0]} under {low}x, {shades[1]} {low}-{high}x, {shades[2]} {high}-{top}x, "
            f"{shades[3]} {top}x or more; n = posts; {glyphs.best} = best"
        )
    )
    if not report.get("enough", True):
        more = report.get("needMore") or 0
        lines.append(Text(f"Not enough history to name best slots yet: {more} more posts needed."))
    return lines


def _slot_key(slot: dict[str, Any]) -> tuple[str, int, int] | None:
    try:
        return str(slot["weekday"]), int(slot["start"]), int(slot["end"])
    except (KeyError, TypeError, ValueError):
        return None


def _cell(slot: dict[str, Any] | None, best: bool, glyphs: Glyphs, width: int) -> Text:
    from rich.text import Text

    n = int(slot.get("n") or 0) if slot else 0
    score = _number(slot.get("score")) if slot else None
    mark = glyphs.best if best else " "
    if not n or score is None or score <= 0:
        return Text(f"{glyphs.empty_cell:<2} {'--':^5} n{n:<3}"[: width - 1].ljust(width))
    shade = glyphs.shades[sum(score >= edge for edge in SHADE_EDGES)]
    style = ""
    if glyphs.colour:
        low, high = SHADE_EDGES[0], SHADE_EDGES[1]
        style = "green" if score >= high else "red" if score < low else "yellow"
    text = Text(shade * 2, style=style)
    text.append(f" {min(score, 99.9):>4.2f}x n{n:<3}", style="bold" if best else "")
    text.append(mark, style="bold" if best else "")
    text.truncate(width - 1)
    text.pad_right(width - len(text))
    return text


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
