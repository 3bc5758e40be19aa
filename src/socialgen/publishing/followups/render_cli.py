"""Follow-ups in the terminal: the lines under a publication (`posts publications`,
`posts publish`) and under a network's dry run. A person reads these, so a due time is
in the creator's zone (kit/local_time.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from socialgen.cli.support import styled

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.publishing.followups.schemas import FollowupStateView

STYLES = {
    "published": "green",
    "failed": "red",
    "unknown": "yellow",
    "skipped": "yellow",
    "waiting": "dim",
}


def followup_lines(out: Console, followups: Sequence[FollowupStateView]) -> None:
    """One indented line per follow-up under a publication."""
    if not followups:
        return
    from socialgen.cli.support import creator_zone
    from socialgen.kit.local_time import local_moment

    for shown in followups:
        due = f"due {local_moment(shown.dueAt, creator_zone())}" if shown.dueAt else ""
        where = shown.url or shown.message or due
        label = shown.kind.replace("-", " ")
        state = (shown.state, STYLES.get(shown.state, "cyan"))
        out.print(styled(f"  {label}: ", state, f"  {where}" if where else ""))


def followup_previews(out: Console, preview: dict[str, Any]) -> None:
    """Under a network's dry run: its first comment and plug as that network takes
    them, or why it cannot."""
    for shown in preview.get("followups") or []:
        label = str(shown["kind"]).replace("-", " ")
        when = (
            f"{shown['delaySeconds']} s after the post is live"
            if "delaySeconds" in shown
            else f"once it has {shown.get('afterLikes')} likes"
        )
        out.print(styled(f"  {label} ({when}), under the post:"))
        if shown.get("error"):
            out.print(styled(("    refused: ", "red"), str(shown["error"])))
        for part in shown.get("parts") or []:
            out.print(styled("    " + str(part["text"]).replace("\n", "\n    ")))
