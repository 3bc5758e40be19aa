"""The creator's time zone: the one asked for (`--tz`, `?tz=`), else the `timezone`
setting, else the system's. Slots and best times are in this zone's local hours."""

from __future__ import annotations

import contextlib
from pathlib import Path
from zoneinfo import ZoneInfo

from socialgen.config import environment
from socialgen.config.keys import is_time_zone
from socialgen.kit.errors import BadRequest


def resolve_zone(asked: str | None, setting: str | None = None) -> ZoneInfo:
    """`asked` wins, then `setting`, then the system's zone; an unknown name is a 400."""
    name = asked if asked is not None else setting
    if name is None:
        return ZoneInfo(system_zone_name())
    name = name.strip()
    if not name or not is_time_zone(name):
        raise BadRequest(
            f"Unknown time zone {name!r}: use an IANA name such as Europe/Paris, "
            "America/New_York or UTC"
        )
    return ZoneInfo(name)


def system_zone_name() -> str:
    """The IANA name of the machine's zone: TZ, /etc/localtime's target, /etc/timezone,
    else UTC (a zone name, not an abbreviation like "CET", so the JSON says which)."""
    candidates = [environment("TZ").removeprefix(":")]
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        target = str(localtime.resolve())
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    with contextlib.suppress(OSError):
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    for name in candidates:
        if name and is_time_zone(name):
            return name
    return "UTC"
