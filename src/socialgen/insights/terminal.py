"""The insights report for a person in the terminal: the headline, the findings and
the inconclusive features with their intervals, the best slots. (The charts are
`charts_terminal.py`'s.)"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


# A first `insights` finds nothing: say how a history gets in (issue 26's two ways).
BRING_HISTORY_IN = (
    "Bring your history in: `socialgen posts import FILE` reads a .csv or .json of "
    "published posts with their likes, reposts and comments, X's archive "
    "(data/tweets.js) or X's analytics export; `socialgen accounts history ACCOUNT` "
    "pulls a connected account's own posts with their counts."
)


def print_report(report: dict[str, Any], out: Console, *, zone_chosen: bool = True) -> None:
    """The report for a person. `zone_chosen` is False when neither --tz nor the
    `timezone` setting named a zone: the machine's was used, and the report says so,
    since weekdays and hours (best times) shift with it."""
    from rich.table import Table
    from rich.text import Text

    posts, zone = report["posts"], report["timezone"]
    days = report["days"]
    window = f" in the last {days} day{'' if days == 1 else 's'}" if days else ""
    if not posts:
        out.print(f"No measured published posts{window}: nothing to learn from yet.")
        if not window:
            out.print(BRING_HISTORY_IN, style="yellow")
    else:
        typical = math.expm1(report["baseline"]["median"])
        latest = report["series"][-1]["baseline"]
        out.print(
            Text.assemble(
                (str(posts), "bold"),
                f" measured published post{'' if posts == 1 else 's'}{window}"
                f" (times in {zone}). Typical post: "
                f"{typical:.0f} likes + reposts + comments; lately {latest:.0f}."
                + _share_with_any(report, typical),
            )
        )
    if posts and not zone_chosen:
        out.print(
            f"No time zone is set: days and hours are in {zone}, this machine's zone, and "
            "best times shift with it. Set yours: socialgen config set timezone "
            "Europe/Berlin (your IANA name), or --tz for this report.",
            style="yellow",
        )
    if not report["enough"]:
        out.print(
            f"Findings and best times need at least {report['floor']} measured published "
            f"posts: {report['needMore']} more needed.",
            style="yellow",
        )
        return
    for title, rows, style in (
        ("Findings: what goes with better (or worse) posts", report["findings"], "green"),
        ("Inconclusive: no clear effect either way", report["inconclusive"], "dim"),
    ):
        if not rows:
            out.print(f"{title}: none.")
            continue
        table = Table(title=title, title_justify="left", header_style="bold")
        for name in ("feature", "engagement", "interval", "posts"):
            table.add_column(name, justify="left" if name == "feature" else "right")
        for row in rows:
            table.add_row(
                row["feature"],
                _times(row["effect"]),
                f"{_times(row['low'])} to {_times(row['high'])}",
                str(row["n"]),
                style=style,
            )
        out.print(table)
    _print_untested(report.get("untested", []), out)
    if report["bestSlots"]:
        out.print(
            Text.assemble(
                ("Best times to post", "bold"),
                " (against your average slot; 90% intervals, shrunk toward it):",
            )
        )
        for slot in report["bestSlots"]:
            out.print(
                f"  {slot['weekday']} {slot['start']:02d}:00-{slot['end']:02d}:00  "
                f"{_times(slot['score'])} ({_times(slot['low'])} to {_times(slot['high'])}), "
                f"{slot['n']} posts"
            )
    elif report["enough"]:
        out.print(
            Text.assemble(
                ("Best time to post: none stands out yet.", "bold"),
                " Your posts did no better in any slot than chance would give;"
                " `posts schedule --at best` still tries the likelier ones.",
            )
        )


def _print_untested(rows: list[dict[str, Any]], out: Console) -> None:
    """What could not be tested, one line each: silence would read as "no effect"."""
    if not rows:
        return
    out.print("Could not be tested:", style="yellow")
    for row in rows:
        out.print(f"  {row['feature']}: {row['reason']}", style="yellow")


def _times(multiplier: float) -> str:
    return f"x{multiplier:.2f}"


def _share_with_any(report: dict[str, Any], typical: float) -> str:
    """When the typical post got nothing, how many got anything: "typical 0" alone reads
    the same for an account where 49% of posts got something and one where 2% did."""
    if round(typical) > 0:
        return ""
    engaged = sum(1 for point in report["series"] if point["engagement"] > 0)
    return f" {engaged} of {report['posts']} ({engaged / report['posts']:.0%}) got any."
