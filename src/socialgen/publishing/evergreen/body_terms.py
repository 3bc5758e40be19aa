"""A plan's terms from the HTTP body (and MCP's input, the same model): times without
an offset are UTC there (SPEC.md), as `posts schedule`'s are over HTTP."""

from __future__ import annotations

from datetime import UTC
from zoneinfo import ZoneInfo

from socialgen.kit.clock import DateOutOfRange, parse_iso
from socialgen.kit.errors import BadRequest
from socialgen.publishing.evergreen.cadence import parse_until
from socialgen.publishing.evergreen.plans import Terms
from socialgen.publishing.evergreen.schemas import EvergreenBody

UTC_ZONE = ZoneInfo("UTC")


def terms_of(body: EvergreenBody) -> Terms:
    first = None
    if body.first is not None:
        try:
            first = parse_iso(body.first, UTC)
        except DateOutOfRange as error:
            raise BadRequest(str(error)) from None
        except ValueError:
            raise BadRequest(
                f"first takes an ISO 8601 time, e.g. 2027-01-05T09:00:00Z (got {body.first!r})"
            ) from None
    return Terms(
        every_days=body.every_days,
        times=body.times,
        until=parse_until(body.until, UTC_ZONE) if body.until is not None else None,
        account_refs=tuple(body.account_ids),
        first=first,
    )
