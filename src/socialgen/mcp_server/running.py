"""A streamed operation as one tool call: plan, run, progress, result, refund.

The same steps as stream_endpoint.plan_and_stream: the plan (checks, quota reserved)
in a worker thread, so a refusal is the tool's error before any work; then the
service's events. Instead of SSE, the events become MCP progress notifications (for
a client that asked for them with a progress token) and the last event of the kind
the tool answers with becomes its result. Whatever the plan reserved and the stream
did not spend is given back when the call ends, however it ends: finished, failed,
or cancelled by the client (`notifications/cancelled` cancels the handler, which
cancels the service's stream, whose Reservation gives back its share; the shielded
release below covers a stream cancelled before its code ran).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from socialgen.app.caller import Caller
from socialgen.app.operations import StreamPlan
from socialgen.events import Event
from socialgen.events.common import StreamError
from socialgen.events.payload import EventPayload, Tally
from socialgen.http.streaming import guarded
from socialgen.mcp_server.tooling import in_thread
from socialgen.workspaces.usage import give_back

P = TypeVar("P", bound=EventPayload)
PlanT = TypeVar("PlanT", bound=StreamPlan)
RequestT = TypeVar("RequestT")


async def run_stream(
    context: Context[Any, Any],
    prepare: Callable[[Caller, RequestT], PlanT],
    caller: Caller,
    request: RequestT,
    run: Callable[[PlanT], AsyncIterator[Event]],
    completed: type[P] | tuple[type[P], ...],
) -> P:
    """The payload of the stream's last `completed` event; the stream's error event is
    the tool's error, with its message."""
    # Shielded: a cancellation while the plan reserves waits for it, then reaches the
    # first await below, inside the `try` that gives the reservation back.
    with anyio.CancelScope(shield=True):
        plan = await in_thread(prepare, caller, request)
    progress = Progress(context)
    found: P | None = None
    stream = run(plan)
    try:
        async for item in guarded(stream):
            payload = item.payload
            if isinstance(payload, StreamError):
                raise ToolError(payload.message)
            if isinstance(payload, completed):
                found = payload
            await progress.report(payload)
    finally:
        # Shielded: a cancelled call still cleans up. The service's stream is closed now
        # (its Reservation, its files) rather than when the generator is collected; then
        # what the plan reserved and nobody spent is given back.
        with anyio.CancelScope(shield=True):
            if isinstance(stream, AsyncGenerator):
                await stream.aclose()
            if plan.reservation_id is not None:
                await in_thread(give_back, plan.caller.engine, plan.reservation_id)
    if found is None:
        raise ToolError("The operation ended without a result; see the server log")
    return found


class Progress:
    """Our events as MCP progress: how many items are done of how many, and what the
    event says (each event says its own, `EventPayload.progress`). Events that say
    nothing of progress (text deltas) send nothing."""

    def __init__(self, context: Context[Any, Any]) -> None:
        self.context = context
        self.tally = Tally()

    async def report(self, payload: EventPayload) -> None:
        step = payload.progress(self.tally)
        if step is not None:
            await self.context.report_progress(self.tally.done, self.tally.total, step)
