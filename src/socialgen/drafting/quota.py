"""The posts a generation reserved, and giving back the ones it did not save.

Reserving happens in the plan (before the stream opens, so HTTP can still answer
402). Whatever ends the stream (done, failed, cancelled, a client gone) the
reservation gives back what was not spent, in a worker thread: the refund is a
write transaction that may wait on a busy SQLite file, which must not stall the
event loop and every other stream on it.

The plan's reservation is a ledger row (`ledger_id`, see workspaces/usage.py): the
save of each post spends it in the database, in the post's own transaction, and the
give-back refunds what the row says is unspent and deletes it. `spent` here is the
stream's own count, kept for the callers; the row is the truth."""

from __future__ import annotations

import asyncio
from types import TracebackType

from socialgen.app.caller import Caller
from socialgen.workspaces import usage


class Reservation:
    """`async with Reservation(caller, n) as quota:` ... `quota.spend()` per post saved."""

    def __init__(self, caller: Caller, reserved: int, ledger_id: str) -> None:
        self.caller = caller
        self.reserved = reserved
        self.ledger_id = ledger_id
        self.spent = 0
        self.given_back = False

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
        if self.given_back:
            return
        self.given_back = True
        self.reserved = self.spent
        # Even if all was spent: the ledger row goes.
        refund = asyncio.to_thread(usage.give_back, self.caller.engine, self.ledger_id)
        await asyncio.shield(asyncio.ensure_future(refund))
