"""The insights page's two charts, drawn with matplotlib as inline SVG: engagement over
time and the weekday x time-of-day heatmap.

matplotlib's object API (a Figure with its own SVG canvas), never pyplot: no global
backend or figure registry is touched, so `serve`'s threads may draw at once, and no
display is needed (the Agg-free SVG canvas renders nothing on screen). Text is drawn
as paths, so the page needs no font; the XML prologue and the RDF metadata block
(which name http:// namespaces) are left out of the page. Imported only when a page
is written: matplotlib costs a quarter of a second to load.
"""

from __future__ import annotations

import io
import math
import re
from datetime import datetime
from statistics import median
from typing import TYPE_CHECKING, Any

from socialgen.insights.charts_terminal import WEEKDAYS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROLLING_POSTS = 15  # the smoothed line on the relative chart: a median over this many
# Past this many posts the dots are drawn as one embedded image (Agg) inside the SVG:
# 10,000 vector dots made a 2.8 MB page that took seconds to draw and to open.
VECTOR_DOTS = 1500
GREEN, RED, GREY, INK = "#1a7f37", "#c0392b", "#8a8f98", "#24292f"


def engagement_svg(series: list[dict[str, Any]]) -> str | None:
    """Engagement per post with the baseline it was expected to reach (top), and the
    same as a multiplier of the baseline on a log axis with 1x marked (bottom)."""
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    from matplotlib.figure import Figure

    points = _series_points(series)
    if not points:
        return None
    when = [point[0] for point in points]
    engagement = [point[1] for point in points]
    baseline = [point[2] for point in points]
    relative = [point[3] for point in points]
    # Fixed margins: constrained layout measured every label again, a second per page.
    figure = Figure(figsize=(9.0, 5.6))
    figure.subplots_adjust(left=0.1, right=0.98, top=0.97, bottom=0.07, hspace=0.08)
    raw, rel = figure.subplots(2, 1, sharex=True, height_ratios=(2, 3))
    many = len(points) > VECTOR_DOTS
    raw.scatter(when, engagement, s=10, color=GREY, label="a post", rasterized=many)
    if any(value is not None for value in baseline):
        raw.plot(when, [math.nan if v is None else v for v in baseline], color=INK, lw=1.6)
        raw.plot([], [], color=INK, lw=1.6, label="your usual (rolling baseline)")
    raw.set_yscale("symlog", linthresh=1)
    raw.set_ylabel("engagement")
    raw.legend(loc="upper left", frameon=False, fontsize=8)
    colours = [GREEN if value >= 1 else RED for value in relative]
    rel.scatter(when, relative, s=12, c=colours, rasterized=many)
    rel.axhline(1.0, color=INK, lw=1.2, ls="--")
    rel.plot(when, _rolling_median(relative), color=INK, lw=1.6, label="rolling median")
    rel.set_yscale("log", base=2)
    low, high = min(relative), max(relative)
    rel.set_ylim(min(low, 0.5) / 1.2, max(high, 2.0) * 1.2)
    rel.yaxis.set_major_formatter(_multiplier_formatter())
    rel.set_ylabel("x your usual (log scale)")
    rel.legend(loc="upper left", frameon=False, fontsize=8)
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    rel.xaxis.set_major_locator(locator)
    rel.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    for axes in (raw, rel):
        axes.spines[["top", "right"]].set_visible(False)
        axes.grid(axis="y", color="#e5e7eb", lw=0.6)
    return _svg(figure, "Engagement over time, relative to your rolling baseline")


def heatmap_svg(slots: list[dict[str, Any]], best: list[dict[str, Any]]) -> str | None:
    """Weekdays down, parts of the day across; colour is the slot's score (log scale,
    green above the usual, red below), each cell says its score and n, best slots
    are outlined."""
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    cells = {key: slot for slot in slots if (key := _slot_key(slot)) is not None}
    if not cells:
        return None
    parts = sorted({(start, end) for _, start, end in cells})
    days = [day for day in WEEKDAYS if any(key[0] == day for key in cells)]
    days += sorted({key[0] for key in cells} - set(days))
    grid = [[_cell_value(cells.get((day, *part))) for part in parts] for day in days]
    width, height = 2.6 + 1.5 * len(parts), 0.9 + 0.55 * len(days)
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(left=1.1 / width, right=1 - 1.4 / width, top=1 - 0.2 / height,
                           bottom=0.45 / height)  # fmt: skip
    axes = figure.subplots()
    # Shrunk scores sit close to 1x: the colours span the widest score shown (at
    # least 1.2x either way, at most 2x), labelled with what they mean.
    widest = max((abs(value) for row in grid for value in row if value is not None), default=0)
    limit = min(max(widest, math.log2(1.2)), 1.0)
    image = axes.imshow(
        [[math.nan if value is None else value for value in row] for row in grid],
        cmap="RdYlGn",
        norm=Normalize(vmin=-limit, vmax=limit),
        aspect="auto",
    )
    bar = figure.colorbar(image, ax=axes, ticks=[-limit, 0, limit], shrink=0.8)
    labels = [f"{2**-limit:.2f}x or less", "1x", f"{2**limit:.2f}x or more"]
    bar.ax.set_yticklabels(labels, fontsize=8)
    for row, day in enumerate(days):
        for column, part in enumerate(parts):
            slot = cells.get((day, *part))
            n = int(slot.get("n") or 0) if slot else 0
            score = _float(slot.get("score")) if slot else None
            label = f"n={n}" if not n or score is None else f"{score:.2f}x\nn={n}"
            value = grid[row][column]
            dark = value is not None and abs(value) > 0.6 * limit
            ink = "white" if dark else INK
            axes.text(column, row, label, ha="center", va="center", fontsize=9, color=ink)
    best_keys = {_slot_key(slot) for slot in best}
    for row, day in enumerate(days):
        for column, part in enumerate(parts):
            if (day, *part) in best_keys:
                axes.add_patch(
                    Rectangle((column - 0.48, row - 0.48), 0.96, 0.96, fill=False, lw=2.4)
                )
    axes.set_xticks(range(len(parts)), [f"{start:02d}-{end:02d}h" for start, end in parts])
    axes.set_yticks(range(len(days)), days)
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    return _svg(figure, "Score of each weekday and time of day; best slots outlined")


def _series_points(
    series: list[dict[str, Any]],
) -> list[tuple[datetime, float, float | None, float]]:
    points = []
    for entry in series:
        try:
            when = datetime.fromisoformat(str(entry["publishedAt"]))
            engagement = float(entry["engagement"])
            relative = float(entry["relative"])
        except (KeyError, TypeError, ValueError):
            continue
        if relative > 0 and math.isfinite(relative) and math.isfinite(engagement):
            points.append((when, engagement, _float(entry.get("baseline")), relative))
    return sorted(points, key=lambda point: point[0])


def _rolling_median(values: list[float]) -> list[float]:
    half = ROLLING_POSTS // 2
    return [median(values[max(0, i - half) : i + half + 1]) for i in range(len(values))]


def _multiplier_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    def label(value: float, _position: int) -> str:
        if value >= 1:
            return f"{value:g}x"
        return f"1/{1 / value:g}x"

    return FuncFormatter(label)


def _slot_key(slot: dict[str, Any]) -> tuple[str, int, int] | None:
    try:
        return str(slot["weekday"]), int(slot["start"]), int(slot["end"])
    except (KeyError, TypeError, ValueError):
        return None


def _cell_value(slot: dict[str, Any] | None) -> float | None:
    """log2 of the slot's score, or None for a slot without posts."""
    score = _float(slot.get("score")) if slot else None
    if not slot or not slot.get("n") or score is None or score <= 0:
        return None
    return math.log2(score)


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_NAMESPACES = (' xmlns:xlink="http://www.w3.org/1999/xlink"', ' xmlns="http://www.w3.org/2000/svg"')


def _svg(figure: Figure, label: str) -> str:
    """The figure as an <svg> element to put in HTML (label escaped by the caller's
    rules: it is ours, never user text)."""
    from matplotlib import rc_context

    out = io.StringIO()
    # A fixed salt: the same report draws the same page (element ids are hashed).
    with rc_context({"svg.fonttype": "path", "svg.hashsalt": "socialgen-insights"}):
        figure.savefig(out, format="svg", metadata={"Date": None}, dpi=144)
    svg = _METADATA.sub("", _PROLOGUE.sub("", out.getvalue(), count=1), count=1)
    # HTML knows <svg> and xlink:href without namespace declarations: the page then
    # holds no http:// at all, not even a namespace name.
    for declaration in _NAMESPACES:
        svg = svg.replace(declaration, "", 1)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)
