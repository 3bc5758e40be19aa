"""The dates of an imported file: a time without an offset is the creator's wall time,
and the offsets the file does carry are kept to check the creator's zone against.

A LinkedIn or spreadsheet export written in Berlin says `2025-03-04T08:30:00+01:00`:
its offsets show where the creator posts from. When they disagree with the zone set
(or, with none set, the machine's), the import says so and names the zones that fit
(import_zone.zone_hint): best times are read in that zone, and in the wrong one a
Tuesday-morning habit looks like nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo

from socialgen.kit.clock import parse_iso


@dataclass
class ImportDates:
    """Reads a file's dates in `zone` (naive ones) and keeps one sample per month and
    offset of those that carry a non-zero offset (a zero offset is how most tools write
    UTC: it tells nothing of where the creator is)."""

    zone: tzinfo = UTC
    samples: dict[tuple[int, int, timedelta], datetime] = field(default_factory=dict)

    def read(self, text: str) -> datetime:
        """The moment (UTC) `text` names: kit.clock.parse_iso, naive in `zone`."""
        moment = parse_iso(text, self.zone)
        offset = _offset_of(text)
        if offset:
            self.samples.setdefault((moment.year, moment.month, offset), moment)
        return moment

    def offsets_seen(self) -> list[tuple[datetime, timedelta]]:
        """(moment, the offset the file gave it), one per month and offset."""
        return [(moment, key[2]) for key, moment in sorted(self.samples.items())]


def _offset_of(text: str) -> timedelta | None:
    try:
        written = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return written.utcoffset()
