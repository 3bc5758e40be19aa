"""The posts a generation reserved, and giving back the ones it did not save.

Reserving happens in the plan (before the stream opens, so HTTP can still answer
402). Whatever ends the stream (done, failed, cancelled, a client gone) the
reservation gives back what was not spent, in a worker thread: the refund is a
write transaction that may wait on a busy SQLite file, which must not stall the
event loop and every other stream on it."""

from __future__ import annotations

import asyncio
from types import TracebackType

from socialgen.drafting import persist
from socialgen.drafting.caller import Caller


class Reservation:
    """`async with Reservation(caller, n) as quota:` ... `quota.spend()` per post saved."""

    def __init__(self, caller: Caller, reserved: int) -> None:
        self.caller = caller
        self.reserved = reserved
        self.spent = 0

    def spend(self, count: int = 1) -> None:
        self.spent = min(self.reserved, self.spent + count)

    @property
    def unspent(self) -> int:
        return self.reserved - self.spent

    async def __aenter__(self) -> Reservation:
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        await self.give_back()

    async def give_back(self) -> None:
        """Refund what was not spent, once. Shielded: a second cancellation while the
        refund runs does not lose it (the thread finishes the transaction)."""
        count, self.reserved = self.unspent, self.spent
        if count <= 0:
            return
        caller = self.caller
        refund = asyncio.to_thread(persist.refund, caller.engine, caller.workspace_id, count)
        await asyncio.shield(asyncio.ensure_future(refund))
