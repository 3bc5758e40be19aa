"""The publishing settings, read from the one settings object each time they are used
(option > environment > config file > default; see socialgen.config).

- SOCIALGEN_PUBLISH_GRACE: how late a due publication may still go out (default 6h);
  later, a worker marks it `missed` and reports it instead of posting it late.
- SOCIALGEN_METRICS_INTERVAL: how often `serve` reads metrics back (default 1h).
- SOCIALGEN_SCHEDULER: "0"/"off"/"false" turns the scheduler in `serve` off (what
  `serve --no-scheduler` sets, since uvicorn's app factory takes no arguments).
- SOCIALGEN_PUBLISH_CLAIM: how long a worker's claim on a `publishing` row stands
  (default 5m); a live worker extends it every third of that (worker.heartbeat), so a
  claim that ended belongs to a worker that died.
- SOCIALGEN_SCHEDULER_POLL: seconds between two looks at the outbox (default 1).

Durations are seconds ("90", "1.5") or a number with s/m/h/d ("30m", "6h"); a value
in the environment that is not one is logged and the default used (config/keys.py).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from socialgen.config import current_settings
from socialgen.config.keys import parse_duration

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

__all__ = ["parse_duration"]


def publish_grace() -> timedelta:
    return current_settings().publish_grace


def metrics_interval() -> timedelta:
    return current_settings().metrics_interval


def claim_duration() -> timedelta:
    return current_settings().publish_claim


def poll_interval() -> float:
    return max(0.05, current_settings().scheduler_poll.total_seconds())


def scheduler_enabled() -> bool:
    return current_settings().scheduler
