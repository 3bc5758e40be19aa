"""Slots proposed from the creator's own history (insights' best-time model).

Each part of the week (weekday x 6-hour part, in the queue's zone) has a posterior of
its posts' level against the creator's average (insights/slots.py). A slot is proposed
as "stands out" only where the permutation test says its posts beat the others beyond
chance (the same test that names the report's best times); pure noise names none. The
rest of the wanted slots are exploration: Thompson draws from every part's posterior
(what `posts schedule --at best` does), so parts the creator rarely tried get tried.
No day gets more than the creator's posts a day, and no part of a day two slots.

With fewer measured posts than insights' floor nothing can stand out: every slot is
exploration, and the answer says so. The draws are seeded by the workspace and the
day, so a proposal looked at, then applied (`--apply`), is the same one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

import numpy as np
from sqlmodel import Session

from socialgen.insights.analysis import FLOOR, local_times, null_residuals
from socialgen.insights.baseline import relative_engagement
from socialgen.insights.best_time import NIGHT_START
from socialgen.insights.history import PublishedPost
from socialgen.insights.slots import (
    DEFAULT_HOUR,
    PARTS,
    Z90,
    SlotPosterior,
    best_slots,
    slot_posteriors,
)
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest
from socialgen.publishing.queue.schemas import SuggestData, SuggestedSlot
from socialgen.publishing.queue.slots import Slot

STANDS_OUT = "stands out"
EXPLORATION = "exploration"
DEFAULT_COUNT = 5
# A part never tried has no data: its prior is wide, so its draws reach high often.
PRIOR_SD = 0.5


@dataclass(frozen=True)
class Proposal:
    slot: Slot
    reason: str
    posterior: SlotPosterior | None  # None: no history at all

    def figures(self) -> tuple[float | None, float | None, float | None]:
        """Score and its 90% interval (1 = the creator's average); none without data."""
        part = self.posterior
        if part is None or part.n == 0:
            return None, None, None
        return (
            round(float(np.exp(part.mean)), 3),
            round(float(np.exp(part.mean - Z90 * part.sd)), 3),
            round(float(np.exp(part.mean + Z90 * part.sd)), 3),
        )


def propose(
    posts: Sequence[PublishedPost],
    zone: ZoneInfo,
    *,
    per_day: int,
    count: int,
    rng: np.random.Generator,
) -> list[Proposal]:
    """`count` slots a week (fewer when the days and parts run out), the ones that
    stand out first, then exploration; in week order."""
    enough = len(posts) >= FLOOR
    parts = judged_parts(posts, zone, judge=enough)
    room = dict.fromkeys(range(7), per_day)
    used: set[tuple[int, int]] = set()
    chosen: list[Proposal] = []

    def take(part: SlotPosterior, reason: str) -> None:
        room[part.weekday] -= 1
        used.add((part.weekday, part.start))
        chosen.append(Proposal(Slot(part.weekday, part.hour * 60), reason, part))

    if enough:
        for part in best_slots(parts, count=len(parts)):
            if len(chosen) < count and room[part.weekday] > 0:
                take(part, STANDS_OUT)
    while len(chosen) < count:
        open_parts = [
            part
            for part in parts
            if room[part.weekday] > 0
            and (part.weekday, part.start) not in used
            and (part.start != NIGHT_START or part.n > 0)  # nights only where tried
        ]
        if not open_parts:
            break
        means = np.array([part.mean for part in open_parts])
        sds = np.array([part.sd for part in open_parts])
        draws = means + sds * rng.standard_normal(means.size)
        take(open_parts[int(np.argmax(draws))], EXPLORATION)
    return sorted(chosen, key=lambda proposal: proposal.slot)


def judged_parts(
    posts: Sequence[PublishedPost], zone: ZoneInfo, *, judge: bool
) -> list[SlotPosterior]:
    """Every part of the week's posterior; judged (stands_out) only with enough posts."""
    if len(posts) < 2:
        return [
            SlotPosterior(day, start, 0.0, PRIOR_SD, 0, DEFAULT_HOUR[start])
            for day in range(7)
            for start in PARTS
        ]
    seconds = np.array([post.published_at.timestamp() for post in posts], dtype=np.float64)
    engagement = np.array([post.engagement for post in posts], dtype=np.float64)
    local = local_times(posts, zone)
    return slot_posteriors(
        relative_engagement(seconds, engagement).residual,
        np.array([moment.weekday() for moment in local], dtype=np.int64),
        np.array([moment.hour for moment in local], dtype=np.int64),
        null_residuals(seconds, engagement) if judge else None,
        judge=judge,
    )


def seeded(workspace_id: str, day: date) -> np.random.Generator:
    """The same draws for a workspace all day: a proposal, then its --apply, agree."""
    digest = hashlib.sha256(f"{workspace_id}:{day.isoformat()}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def message(proposals: Sequence[Proposal], measured: int, count: int) -> str:
    standing = sum(1 for proposal in proposals if proposal.reason == STANDS_OUT)
    exploring = len(proposals) - standing
    short = (
        f" Only {len(proposals)} of the {count} slots asked for fit your posts a day."
        if len(proposals) < count
        else ""
    )
    if measured < FLOOR:
        return (
            f"Not enough history to tell your best times: {measured} measured published "
            f"posts, {FLOOR} needed ({FLOOR - measured} more). All {len(proposals)} slots "
            "are exploration (Thompson draws), to learn when your posts do well." + short
        )
    if standing == 0:
        return (
            "No time of your week stands out beyond chance in your history: all "
            f"{len(proposals)} slots are exploration (Thompson draws from each part of the "
            "week's posterior)." + short
        )
    return (
        f"{standing} slot(s) stand out in your history (better than your other posts "
        f"beyond chance); the other {exploring} are exploration (Thompson draws)." + short
    )


def suggest_slots(
    session: Session,
    workspace_id: str,
    *,
    zone: str,
    per_day: int | None = None,
    count: int | None = None,
    account_ref: str | None = None,
    apply: bool = False,
    rng: np.random.Generator | None = None,
) -> SuggestData:
    """Slots for the queue (the workspace's, or the account's) from the workspace's
    history, in the queue's zone (`zone` for a queue not made yet); with `apply` they
    become its slots, and `per_day` its posts a day."""
    from socialgen.insights.history import load_published
    from socialgen.publishing.queue import repository
    from socialgen.publishing.queue.service import account_of, queue_view, set_slots

    account = account_of(session, workspace_id, account_ref)
    queue = repository.queue_of(session, workspace_id, account.id if account else None)
    zone_name = queue.timezone if queue is not None else zone
    per = per_day or (queue.per_day if queue is not None and queue.per_day else 1)
    wanted = count or (len(repository.slots_of(session, queue.id)) if queue else 0)
    wanted = wanted or DEFAULT_COUNT
    posts = load_published(session, workspace_id)
    chosen = propose(
        posts,
        ZoneInfo(zone_name),
        per_day=per,
        count=wanted,
        rng=rng if rng is not None else seeded(workspace_id, utcnow().date()),
    )
    applied = None
    if apply:
        if not chosen:
            raise BadRequest("No slot to apply: every day is full at your posts a day")
        made = set_slots(
            session,
            workspace_id,
            [proposal.slot for proposal in chosen],
            zone=zone_name,
            account_ref=account_ref,
            per_day=per,
        )
        applied = queue_view(session, made)
    rows = []
    for proposal in chosen:
        score, low, high = proposal.figures()
        rows.append(
            SuggestedSlot(
                slot=proposal.slot.label,
                reason=proposal.reason,
                score=score,
                low=low,
                high=high,
                posts=proposal.posterior.n if proposal.posterior else 0,
            )
        )
    return SuggestData(
        timezone=zone_name,
        enough=len(posts) >= FLOOR,
        measured=len(posts),
        floor=FLOOR,
        perDay=per,
        count=wanted,
        slots=rows,
        message=message(chosen, len(posts), wanted),
        applied=applied,
    )
