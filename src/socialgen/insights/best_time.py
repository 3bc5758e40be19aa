"""Choosing when to post next: Thompson sampling over the slots' posteriors.

Each call draws one plausible level for every slot from its posterior and takes the
best draw, so a slot that is probably best is chosen most often while a slot the
creator rarely tried (wide posterior) still gets chosen now and then: how its true
level is learnt (Spasojevic et al., "When-To-Post on Social Networks", KDD 2015).
The chosen slot's next free moment is returned: its usual hour, not in the past, on a
day whose slot holds no other scheduled post of the workspace.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import numpy as np

from socialgen.insights.slots import SlotPosterior

# Night slots (0-6) are suggested only where the creator has posted before.
NIGHT_START = 0
# A suggestion at least this far ahead: a post due right now could not be reviewed.
LEAD = timedelta(minutes=15)
WEEKS_AHEAD = 52


def thompson_pick(slots: Sequence[SlotPosterior], rng: np.random.Generator) -> SlotPosterior:
    """One slot, by a draw from every eligible slot's posterior."""
    eligible = [slot for slot in slots if slot.start != NIGHT_START or slot.n > 0]
    means = np.array([slot.mean for slot in eligible])
    sds = np.array([slot.sd for slot in eligible])
    draws = means + sds * rng.standard_normal(means.size)
    return eligible[int(np.argmax(draws))]


def next_best_time(
    slots: Sequence[SlotPosterior],
    zone: ZoneInfo,
    *,
    now: datetime,
    taken: Sequence[datetime] = (),
    rng: np.random.Generator | None = None,
) -> datetime:
    """The moment (UTC) to post next: a slot by Thompson sampling, then its next
    occurrence after `now` that no moment of `taken` (other scheduled posts) shares."""
    chosen = thompson_pick(slots, rng if rng is not None else np.random.default_rng())
    return next_free_moment(chosen, zone, now=now, taken=taken)


def next_free_moment(
    slot: SlotPosterior, zone: ZoneInfo, *, now: datetime, taken: Sequence[datetime] = ()
) -> datetime:
    local_now = now.astimezone(zone)
    busy = {
        moment.astimezone(zone).date()
        for moment in taken
        if moment.astimezone(zone).weekday() == slot.weekday
        and slot.start <= moment.astimezone(zone).hour < slot.end
    }
    first_day = local_now.date() + timedelta(days=(slot.weekday - local_now.weekday()) % 7)
    earliest = local_now + LEAD
    for week in range(WEEKS_AHEAD):
        day = first_day + timedelta(weeks=week)
        if day in busy:
            continue
        moment = datetime.combine(day, time(slot.hour), tzinfo=zone)
        if moment < earliest:
            # Today's slot is under way: later in it, if it is not over.
            moment = _round_up(earliest)
            if moment.date() != day or moment.hour >= slot.end:
                continue
        return moment.astimezone(UTC)
    raise LookupError("every occurrence of the slot in the next year is taken")


def _round_up(moment: datetime) -> datetime:
    """The next quarter of an hour at or after `moment`."""
    spare = -moment.minute % 15
    rounded = moment.replace(second=0, microsecond=0) + timedelta(minutes=spare)
    return rounded if rounded >= moment else rounded + timedelta(minutes=15)
