"""The publishing settings, read from the environment each time they are used (tests
and operators change them without restarting anything but the process that reads).

- SOCIALGEN_PUBLISH_GRACE: how late a due publication may still go out (default 6h);
  later, a worker marks it `missed` and reports it instead of posting it late.
- SOCIALGEN_METRICS_INTERVAL: how often `serve` reads metrics back (default 1h).
- SOCIALGEN_SCHEDULER: "0"/"off"/"false" turns the scheduler in `serve` off (what
  `serve --no-scheduler` sets, since uvicorn's app factory takes no arguments).
- SOCIALGEN_PUBLISH_CLAIM: how long a worker's claim on a `publishing` row stands
  (default 5m); a live worker extends it every third of that (worker.heartbeat), so a
  claim that ended belongs to a worker that died.
- SOCIALGEN_SCHEDULER_POLL: seconds between two looks at the outbox (default 1).

Durations are seconds ("90", "1.5") or a number with s/m/h/d ("30m", "6h").
"""

from __future__ import annotations

import logging
import os
import re
from datetime import timedelta

logger = logging.getLogger("socialgen.publishing")

GRACE_ENV = "SOCIALGEN_PUBLISH_GRACE"
METRICS_INTERVAL_ENV = "SOCIALGEN_METRICS_INTERVAL"
SCHEDULER_ENV = "SOCIALGEN_SCHEDULER"
CLAIM_ENV = "SOCIALGEN_PUBLISH_CLAIM"
POLL_ENV = "SOCIALGEN_SCHEDULER_POLL"

DEFAULT_GRACE = timedelta(hours=6)
DEFAULT_METRICS_INTERVAL = timedelta(hours=1)
DEFAULT_CLAIM = timedelta(minutes=5)
DEFAULT_POLL = timedelta(seconds=1)
# Metrics are read for publications younger than this; older counts barely move.
METRICS_WINDOW = timedelta(days=30)
# Attempts per publication before a retryable error becomes `failed`.
MAX_ATTEMPTS = 5

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)
_OFF = frozenset({"0", "off", "false", "no"})


def parse_duration(text: str) -> timedelta:
    """ "90" or "1.5" seconds, or "30m", "6h", "1d"; ValueError otherwise."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"not a duration: {text!r} (e.g. 90, 30m, 6h)")
    number, unit = match.groups()
    return timedelta(seconds=float(number) * _UNITS[(unit or "s").lower()])


def _duration(name: str, default: timedelta) -> timedelta:
    raw = (os.environ.get(name) or "").strip()
    if not raw:
        return default
    try:
        return parse_duration(raw)
    except ValueError:
        # A typo must not stop the scheduler; say so where an operator looks.
        logger.warning("%s=%r is not a duration; using %s", name, raw, default)
        return default


def publish_grace() -> timedelta:
    return _duration(GRACE_ENV, DEFAULT_GRACE)


def metrics_interval() -> timedelta:
    return _duration(METRICS_INTERVAL_ENV, DEFAULT_METRICS_INTERVAL)


def claim_duration() -> timedelta:
    return _duration(CLAIM_ENV, DEFAULT_CLAIM)


def poll_interval() -> float:
    return max(0.05, _duration(POLL_ENV, DEFAULT_POLL).total_seconds())


def scheduler_enabled() -> bool:
    return (os.environ.get(SCHEDULER_ENV) or "").strip().lower() not in _OFF
