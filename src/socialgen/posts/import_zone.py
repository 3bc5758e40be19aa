"""Whether an import's offsets fit the creator's zone, and which zones would.

A zone fits when, at every sampled moment, its offset is the one the file wrote: a
file with +01:00 in winter and +02:00 in summer fits Europe/Berlin (and Paris, Rome
...), not Europe/London. With the fitting zones named, `config set timezone` is one
command away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

# Named first when they fit: the zones most creators post from, so that a file from
# Berlin suggests Europe/Berlin before Africa/Ceuta. The rest follow by name.
_COMMON = (
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Madrid",
    "Europe/Amsterdam",
    "Europe/Stockholm",
    "Europe/Warsaw",
    "Europe/Athens",
    "Europe/Istanbul",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Mexico_City",
    "America/Sao_Paulo",
    "America/Argentina/Buenos_Aires",
    "Asia/Kolkata",
    "Asia/Dubai",
    "Asia/Singapore",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Jakarta",
    "Australia/Sydney",
    "Pacific/Auckland",
    "Africa/Lagos",
    "Africa/Nairobi",
    "Africa/Johannesburg",
)
SUGGESTED = 3  # zones named in the message


@dataclass(frozen=True)
class ZoneHint:
    """The file's offsets disagree with `current`; `fitting` are zones that agree."""

    current: str
    offsets: tuple[str, ...]  # "+01:00", "+02:00"
    fitting: tuple[str, ...]  # best first, at most SUGGESTED

    def message(self) -> str:
        offsets = " and ".join(self.offsets)
        said = f"The file's times carry {offsets}, which is not {self.current}, your zone"
        if not self.fitting:
            return f"{said}: set the zone you post from with socialgen config set timezone NAME."
        names = ", ".join(self.fitting)
        return (
            f"{said}: they fit {names}. If that is where you post from: "
            f"socialgen config set timezone {self.fitting[0]}"
        )

    def json(self) -> dict[str, object]:
        return {
            "current": self.current,
            "offsets": list(self.offsets),
            "fitting": list(self.fitting),
        }


def zone_hint(samples: list[tuple[datetime, timedelta]], current: ZoneInfo) -> ZoneHint | None:
    """None when the file carries no non-zero offset or `current` fits them all."""
    if not samples or _fits(current, samples):
        return None
    fitting = [name for name in _candidates() if _fits(ZoneInfo(name), samples)]
    offsets = tuple(sorted({_shown(offset) for _, offset in samples}))
    return ZoneHint(current.key, offsets, tuple(fitting[:SUGGESTED]))


def _fits(zone: ZoneInfo, samples: list[tuple[datetime, timedelta]]) -> bool:
    return all(moment.astimezone(zone).utcoffset() == offset for moment, offset in samples)


@cache
def _candidates() -> tuple[str, ...]:
    """Region/City names (no Etc/, no legacy aliases like CET or US/Eastern), the
    common ones first."""
    named = sorted(
        name
        for name in available_timezones()
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "US/", "posix/", "right/"))
    )
    common = [name for name in _COMMON if name in named]
    return (*common, *(name for name in named if name not in common))


def _shown(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
