"""The publishing settings, from a Runtime's settings object (option > environment >
config file > default; see socialgen.config), handed in by the face that runs a pass.

- publish_grace (SOCIALGEN_PUBLISH_GRACE): how late a due publication may still go
  out (default 6h); later, a worker marks it `missed` and reports it instead of
  posting it late.
- metrics_interval (SOCIALGEN_METRICS_INTERVAL): how often `serve` reads metrics back
  (default 1h).
- scheduler (SOCIALGEN_SCHEDULER): off turns the scheduler in `serve` off (as
  `serve --no-scheduler` does).
- publish_claim (SOCIALGEN_PUBLISH_CLAIM): how long a worker's claim on a `publishing`
  row stands (default 5m); a live worker extends it every third of that
  (worker.heartbeat), so a claim that ended belongs to a worker that died.
- scheduler_poll (SOCIALGEN_SCHEDULER_POLL): seconds between two looks at the outbox
  (default 1).

Durations are seconds ("90", "1.5") or a number with s/m/h/d ("30m", "6h"); a value
in the environment that is not one is logged and the default used (config/keys.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from socialgen.config.keys import parse_duration
from socialgen.publishing.registry import Networks

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings
    from socialgen.files.store import FileStore

DEFAULT_GRACE = timedelta(hours=6)
DEFAULT_CLAIM = timedelta(minutes=5)
# Metrics are read for publications younger than this; older counts barely move.
METRICS_WINDOW = timedelta(days=30)
# Attempts per publication before a retryable error becomes `failed`.
MAX_ATTEMPTS = 5

__all__ = ["parse_duration"]


@dataclass(frozen=True)
class PublishTerms:
    """What a publishing pass runs by: how late a post may still go out, how long a
    claim stands, which module speaks for each network, where a post's media are read
    from. `PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime))` in
    a face; the durations' defaults are the settings' defaults (tests); the networks
    (with the secret keys) and the file store have none: they are the Runtime's."""

    grace: timedelta = DEFAULT_GRACE
    claim: timedelta = DEFAULT_CLAIM
    networks: Networks = field(kw_only=True)
    files: FileStore = field(kw_only=True)

    @classmethod
    def of(cls, settings: AppSettings, networks: Networks, files: FileStore) -> PublishTerms:
        return cls(
            grace=settings.publish_grace,
            claim=settings.publish_claim,
            networks=networks,
            files=files,
        )


def poll_interval(settings: AppSettings) -> float:
    return max(0.05, settings.scheduler_poll.total_seconds())
