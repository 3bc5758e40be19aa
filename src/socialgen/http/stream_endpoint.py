"""The one shape of every streaming endpoint: plan, then stream.

The plan (checks, the workspace's quota reserved) runs in a worker thread before
the response starts, so it can still answer 4xx; then the events go out as SSE.
Whatever the plan reserved and the stream did not settle is given back once the
response is over, even when the client left before the stream's code ran.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from socialgen.app.caller import Caller
from socialgen.app.operations import StreamPlan
from socialgen.events import Event
from socialgen.http.streaming import sse_response
from socialgen.workspaces.usage import leftover_release

PlanT = TypeVar("PlanT", bound=StreamPlan)
RequestT = TypeVar("RequestT")


async def plan_and_stream(
    prepare: Callable[[Caller, RequestT], PlanT],
    caller: Caller,
    request: RequestT,
    run: Callable[[PlanT], AsyncIterator[Event]],
    *,
    typed: bool = False,
) -> StreamingResponse:
    """`prepare(caller, request)` off the event loop, then `run(plan)`'s events as SSE
    (`typed`: each data is {type, data}, the carousel stream's form)."""
    plan = await run_in_threadpool(prepare, caller, request)
    return sse_response(
        run(plan),
        keepalive=plan.caller.settings.keepalive_seconds,
        typed=typed,
        on_close=leftover_release(plan.caller.engine, plan.reservation_id),
    )
