"""A streamed operation, declared once and served by the three faces.

An operation is a plan (checks, the workspace's quota reserved: it may still refuse)
and a run (the service's events). A feature declares it once, as a `StreamedOperation`
named in its feature.py (`Feature.operations`), and each face serves it from that
declaration, with no code of the feature's own:

- the API, as a POST route answering Server-Sent Events (`http/operation_routes.py`,
  from `OverHttp`);
- MCP, as one tool call whose result is the stream's last `completed` event and whose
  progress is the stream's events (`mcp_server/operation_tools.py`, from `AsTool`);
- the command line, which parses its own options into the request and streams the
  events in the terminal (`StreamedOperation.stream`; a command's options are its
  own, so each command stays written by hand).

As simonw/llm's one `Response` is both a stream and a result, the same events are the
SSE stream, the MCP progress and result, and what the terminal prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from socialgen.app.caller import Caller
from socialgen.events import Event
from socialgen.events.payload import EventPayload
from socialgen.kit.limits import BodyLimit

if TYPE_CHECKING:
    from socialgen.ai.image_types import ImageModel
    from socialgen.ai.model import TextModel
    from socialgen.app.runtime import Runtime


class StreamPlan(Protocol):
    """What every plan carries: who it runs for, and what it reserved of the quota."""

    @property
    def caller(self) -> Caller: ...

    @property
    def reservation_id(self) -> str | None: ...  # None: nothing reserved up front


RequestT = TypeVar("RequestT")
PlanT = TypeVar("PlanT", bound=StreamPlan)
DoneT = TypeVar("DoneT", bound=EventPayload)


@dataclass(frozen=True)
class Resources:
    """What a run may use: the models, each fetched only when the run asks for it (a
    text operation never builds the image model, which may be misconfigured), and
    the Runtime's set of cleanup tasks that outlive a request whose client left."""

    text: Callable[[], TextModel]
    images: Callable[[], ImageModel]
    cleanups: set[asyncio.Task[None]]


@dataclass(frozen=True, kw_only=True)
class OverHttp:
    """How the API serves the operation: `POST path`, answering SSE.

    The body is either `body`, a JSON model FastAPI reads and documents, or `read`, an
    async reader of the raw request (a form with files, or JSON) given the app's
    Runtime, documented as `documented` (`takes_files`: also as a form)."""

    name: str  # the route's name (its operationId and summary in /docs)
    path: str  # the whole path, with {workspaceId}
    tag: str
    doc: str  # the route's description in /docs
    stream_doc: str = "Server-Sent Events"  # the 200 answer's description
    body: type[BaseModel] | None = None
    read: Callable[[Any, Runtime], Awaitable[Any]] | None = None  # (starlette Request, ...)
    documented: type[BaseModel] | None = None
    takes_files: bool = False
    cap: BodyLimit | None = None  # None: the default JSON cap
    errors: tuple[int, ...] = (400, 401, 403, 404)
    # SPEC.md: generate-batch-posts answers a bad API key with 400, not 401.
    key_error_status: int = 401
    typed: bool = False  # each SSE data is {type, data} (the carousel stream's form)


@dataclass(frozen=True, kw_only=True)
class AsTool:
    """How MCP serves the operation: a tool whose arguments are `arguments` (a model
    with the request's fields and workspaceId) and whose result is `result`.

    `request` turns the arguments into the operation's request (default: the
    arguments themselves, a subclass of the request model); `answer` turns the
    `completed` event into the result, in a worker thread (default: the event)."""

    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    result: Any  # a model, or a union of models
    request: Callable[[Any, Runtime], Awaitable[Any]] | None = None
    answer: Callable[[Any, Caller], Any] | None = None


@dataclass(frozen=True, kw_only=True)
class StreamedOperation(Generic[RequestT, PlanT, DoneT]):
    """One streamed operation: its plan, its run, the events that end it, and how the
    API and MCP serve it."""

    prepare: Callable[[Caller, RequestT], PlanT]
    run: Callable[[PlanT, Resources], AsyncIterator[Event]]
    completed: tuple[type[DoneT], ...]  # the tool's result: the last one of these
    http: OverHttp
    tool: AsTool
    uses_images: bool = False  # the faces build the image model before the stream

    def stream(
        self, caller: Caller, request: RequestT, resources: Resources
    ) -> AsyncIterator[Event]:
        """Plan (a refusal raises here, before any event), then the run's events: the
        command line's way."""
        return self.run(self.prepare(caller, request), resources)


def resources_of(runtime: Runtime) -> Resources:
    """A Runtime's models and cleanups, as a run uses them (the command line's)."""
    return Resources(
        text=runtime.text_model, images=runtime.image_model, cleanups=runtime.held.cleanups
    )
