"""Times a person reads: in the creator's zone, and saying which.

One rule everywhere (docs/config.md, "Time zone"): what a person reads (a table, a
message, the HTML page) is in the creator's zone and names it; `--json`, the HTTP
API and MCP stay ISO 8601 UTC (kit.clock.iso). The zone itself is resolved by
config.zone (the `timezone` setting, else the system's).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo


def in_zone(moment: datetime | str, zone: ZoneInfo) -> datetime:
    """`moment` (an aware datetime, a naive one meaning UTC, or an ISO 8601 text) as
    the wall-clock time in `zone`."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:  # the store's times are UTC, some read back naive
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone)


def local_minute(moment: datetime | str | None, zone: ZoneInfo) -> str:
    """ "2026-12-16 09:00" in `zone` (a table whose header names the zone); "" for none."""
    if moment is None or moment == "":
        return ""
    return f"{in_zone(moment, zone):%Y-%m-%d %H:%M}"


def local_day(moment: datetime | str | None, zone: ZoneInfo) -> str:
    """ "2026-12-16", the day `moment` falls on in `zone`; "" for none."""
    if moment is None or moment == "":
        return ""
    return f"{in_zone(moment, zone):%Y-%m-%d}"


def local_moment(moment: datetime | str, zone: ZoneInfo) -> str:
    """ "2026-12-16 09:00 Europe/Berlin": a time in a sentence, with its zone."""
    return f"{local_minute(moment, zone)} {zone.key}"


def zone_header(column: str, zone: ZoneInfo) -> str:
    """A table column's header that names the zone its times are in."""
    return f"{column} ({zone.key})"
