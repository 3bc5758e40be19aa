"""A thread's progress kept while it goes out, for networks without an idempotency key.

Each part that goes live is recorded at once, in its own short transaction and only
while the claim is still this worker's, so an attempt that fails at part 3 (or a
worker that dies there) leaves parts 1 and 2 on the publication: the next attempt
starts at part 3, replying to part 2, and never posts them again. The outbox hands the
recorded ids to the adapter as `OutgoingPost.posted_parts`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from socialgen.kit.clock import parse_iso
from socialgen.publishing.outbox.repository_claim import record_answer
from socialgen.publishing.outbox.service import MAYBE_LIVE_SINCE, POSTED_PARTS
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication


def posted_parts(publication: Publication) -> tuple[str, ...]:
    raw = (publication.options or {}).get(POSTED_PARTS)
    if not isinstance(raw, list):
        return ()
    return tuple(str(item) for item in raw if isinstance(item, str) and item)


def maybe_live_since(publication: Publication) -> datetime | None:
    """When an attempt of the publication may have gone live without an answer."""
    raw = (publication.options or {}).get(MAYBE_LIVE_SINCE)
    try:
        return parse_iso(raw) if isinstance(raw, str) and raw else None
    except ValueError:
        return None


class PartRecorder:
    """`OutgoingPost.part_posted` for one claim: writes the ids of the parts live so
    far on the publication (`options`), while the claim is this worker's."""

    def __init__(
        self,
        engine: Engine,
        publication_id: str,
        worker_id: str,
        options: dict[str, Any],
        already: tuple[str, ...],
    ) -> None:
        self._engine = engine
        self._publication_id = publication_id
        self._worker_id = worker_id
        self._options = dict(options)
        self.ids: list[str] = list(already)

    def __call__(self, index: int, remote_id: str) -> None:
        # A part posted again at an index already recorded replaces what follows it
        # (it cannot happen with a well-behaved adapter, but the list stays in order).
        self.ids[index:] = [remote_id]
        values = {"options": {**self._options, POSTED_PARTS: list(self.ids)}}
        with transaction(self._engine) as session:
            record_answer(session, self._publication_id, self._worker_id, values)
