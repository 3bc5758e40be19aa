"""Several drafts at once, one summary, one refund: the shape the batch and the
calendar share.

Each job writes and saves one draft and returns what the summary lists about it;
a job that fails (a SocialgenError) fails alone and its event says why. Jobs run
at most `limit` at a time and their events stream as they happen (fan_out). The
reservation gives back the quota of every draft not saved, however the run ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Generic, TypeVar

from socialgen.drafting.fanout import Emit, fan_out
from socialgen.drafting.quota import Reservation
from socialgen.errors import SocialgenError
from socialgen.events import Event

ResultT = TypeVar("ResultT")  # what the summary lists about one saved draft
DraftJob = Callable[[Emit], Awaitable[ResultT]]
FailedEvent = Callable[[int, str], Event]


class DraftRunner(Generic[ResultT]):
    def __init__(self, quota: Reservation, limit: int) -> None:
        self.quota = quota
        self.limit = limit
        self.results: dict[int, ResultT] = {}
        self.failures: dict[int, str] = {}

    async def run(
        self, jobs: Mapping[int, DraftJob[ResultT]], failed: FailedEvent
    ) -> AsyncIterator[Event]:
        """Run `jobs` (keyed by their 1-based index); `failed(index, message)` is the
        event a failing job emits."""

        def guarded(index: int, job: DraftJob[ResultT]) -> Callable[[Emit], Awaitable[None]]:
            async def run_one(emit: Emit) -> None:
                try:
                    result = await job(emit)
                except SocialgenError as error:
                    self.failures[index] = error.message
                    await emit(failed(index, error.message))
                    return
                self.results[index] = result
                self.quota.spend()

            return run_one

        async for item in fan_out([guarded(index, job) for index, job in jobs.items()], self.limit):
            yield item

    def fail_all(self, indexes: list[int], message: str) -> None:
        """Record a failure shared by every draft (e.g. their common sources)."""
        for index in indexes:
            self.failures[index] = message

    def ordered_results(self) -> list[ResultT]:
        return [self.results[index] for index in sorted(self.results)]

    def summary(self, total: int) -> dict[str, int]:
        """SPEC.md's {total, generated, failed} of a *_complete event."""
        generated = len(self.results)
        return {"total": total, "generated": generated, "failed": total - generated}
