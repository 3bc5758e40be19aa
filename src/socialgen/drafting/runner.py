"""Several drafts at once, one summary, one refund: the shape the batch and the
calendar share.

Each job writes and saves one draft and returns what the summary lists about it;
a job that fails (a SocialgenError) fails alone and its event says why. Jobs run
at most `limit` at a time and their events stream as they happen (fan_out). A job
whose answer the provider cut short (StreamCut: llama_cpp.server ends a running
answer when another request arrives) runs once more after the others, one at a
time. The reservation gives back the quota of every draft not saved, however the
run ends.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Generic, TypeVar

from socialgen.ai.model import StreamCut
from socialgen.drafting.fanout import Emit, fan_out
from socialgen.drafting.quota import Reservation
from socialgen.events import Event
from socialgen.kit.errors import SocialgenError

logger = logging.getLogger("socialgen.drafting")

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
        cut: dict[int, DraftJob[ResultT]] = {}

        def guarded(
            index: int, job: DraftJob[ResultT], *, again_if_cut: bool
        ) -> Callable[[Emit], Awaitable[None]]:
            async def run_one(emit: Emit) -> None:
                try:
                    result = await job(emit)
                except SocialgenError as error:
                    if again_if_cut and isinstance(error, StreamCut):
                        cut[index] = job
                        return
                    self.failures[index] = error.message
                    await emit(failed(index, error.message))
                    return
                self.results[index] = result
                self.quota.spend()

            return run_one

        first = [guarded(index, job, again_if_cut=True) for index, job in jobs.items()]
        async for item in fan_out(first, self.limit):
            yield item
        if cut:
            # After every other draft has finished: nothing else is asked of the
            # provider while each of these is written again.
            logger.info("%d draft(s) cut short by the provider; writing them alone", len(cut))
            again = [guarded(index, job, again_if_cut=False) for index, job in sorted(cut.items())]
            async for item in fan_out(again, 1):
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
