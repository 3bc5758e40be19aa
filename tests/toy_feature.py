"""A toy feature, declared from tests/ alone: its own events, stream, routes, commands,
a streamed operation declared once (TOY_NOTES: its notes saved as drafts, each
spending the post it reserved; served as a body route behind the workspace guard with
its own cap, as an MCP tool and as a command), a command group with a command
added by `extends`, an MCP tool that runs its stream,
lifespan and start work, and a model call of its own purpose (`toy_word`, answered
by the scripted models as tests/toy_replies.py declares), handed in through a Runtime
(tests/test_toy_feature.py).

It proves docs/architecture.md's "Add a feature" checklist: nothing under src/ names
it, so if adding it needed an edit to a central registry (the events', the
terminal's, the app's or the command line's), the test that runs it fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import typer
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel, Field
from starlette.responses import StreamingResponse

from socialgen.ai.model import TextModel, complete
from socialgen.app.caller import Caller
from socialgen.app.operations import AsTool, OverHttp, StreamedOperation
from socialgen.app.registration import Feature, Group
from socialgen.cli.events import command_resources, stream_in_terminal
from socialgen.cli.support import JsonOpt, current_runtime, open_workspace
from socialgen.drafting.persist import save_post
from socialgen.drafting.quota import Reservation
from socialgen.events import Event
from socialgen.events.common import Keepalive, StreamError
from socialgen.events.payload import EventPayload
from socialgen.events.stream import Stream
from socialgen.files.backends import files_of
from socialgen.http.streaming import sse_response
from socialgen.http.support import TextModelDep
from socialgen.kit.limits import BodyLimit
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.store.engine import transaction
from socialgen.workspaces.usage import reserve_posts

# ------------------------------------------------------------------ its events


class ToyTick(EventPayload):
    """One count."""

    event_name: ClassVar[str] = "toy_tick"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"n": 1},)
    n: int = Field(ge=1, description="The count so far.")


class ToyDone(EventPayload):
    """The count is over; a count of nothing is a failure (the command exits 1)."""

    event_name: ClassVar[str] = "toy_done"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"success": True, "counted": 2},
        {"success": False, "counted": 0},
    )
    success: bool = Field(description="True when something was counted.")
    counted: int = Field(ge=0, description="How many ticks were sent.")

    def reports_failure(self) -> bool:
        return not self.success


STREAMS = (
    Stream(
        "toy",
        "Toy stream",
        "GET /api/v1/toy/count/{n}",
        (ToyTick, ToyDone, Keepalive, StreamError),
    ),
)


# ---------------------------------------------------------------- its service


async def count(n: int) -> AsyncIterator[Event]:
    for tick in range(1, n + 1):
        yield Event.of(ToyTick(n=tick))
    yield Event.of(ToyDone(success=n > 0, counted=n))


WORD_PURPOSE = "toy_word"  # what the toy asks the model for: one word about a topic


async def word_about(model: TextModel, topic: str) -> str:
    messages = [{"role": "user", "content": f"One word about {topic}."}]
    return (await complete(model, messages, max_tokens=8, purpose=WORD_PURPOSE)).strip()


# ------------------------------------------------- its plan and its quota'd service

TOY_BODY = BodyLimit(
    json_bytes=1024, json_too_large="The toy's body is larger than 1 KB", needs_posts=1
)


class ToyNotesBody(BaseModel):
    notes: list[str] = Field(min_length=1, max_length=5, description="Drafts to save.")


class ToyNotesInput(ToyNotesBody, InWorkspace):
    """The tool's arguments: the body, and the workspace (default: the key's)."""


@dataclass(frozen=True)
class ToyNotesPlan:
    caller: Caller
    notes: tuple[str, ...]
    reservation_id: str | None


def prepare_notes(caller: Caller, body: ToyNotesBody) -> ToyNotesPlan:
    """Reserve one post per note (403 with the quota's message when there are not
    that many left), before the stream opens."""
    with transaction(caller.engine) as session:
        reservation_id = reserve_posts(session, caller.workspace_id, len(body.notes))
    return ToyNotesPlan(caller, tuple(body.notes), reservation_id)


async def save_notes(plan: ToyNotesPlan) -> AsyncIterator[Event]:
    """Each note a draft, spending its reserved post; a toy_tick per note saved."""
    caller = plan.caller
    assert plan.reservation_id is not None
    async with Reservation(caller, len(plan.notes), plan.reservation_id) as quota:
        for number, note in enumerate(plan.notes, start=1):
            save_post(
                caller.engine,
                workspace_id=caller.workspace_id,
                user_id=caller.user_id,
                conversation_id=None,
                user_input="toy",
                content=note,
                reservation_id=plan.reservation_id,
            )
            quota.spend()
            yield Event.of(ToyTick(n=number))
    yield Event.of(ToyDone(success=True, counted=len(plan.notes)))


# ------------------------------------------------------------------ its faces

router = APIRouter()


@router.get("/api/v1/toy/count/{n}")
async def count_route(n: int) -> StreamingResponse:
    return sse_response(count(n), keepalive=15.0)


# One declaration: the API's POST route (its cap, the workspace guard), the MCP tool
# `toy_notes` and the command `toy-notes` all serve it; nothing else is written.
TOY_NOTES = StreamedOperation(
    prepare=prepare_notes,
    run=lambda plan, _using: save_notes(plan),
    completed=(ToyDone,),
    http=OverHttp(
        name="toy_notes",
        path="/api/v1/toy/notes/{workspaceId}",
        tag="toy",
        doc="The notes saved as drafts: a toy_tick each, then toy_done.",
        body=ToyNotesBody,
        cap=TOY_BODY,
    ),
    tool=AsTool(
        name="toy_notes",
        title="Save notes",
        description="Each note saved as a draft.",
        arguments=ToyNotesInput,
        result=ToyDone,
    ),
)


@router.get("/api/v1/toy/word")
async def word_route(topic: str, model: TextModelDep) -> dict[str, str]:
    return {"word": await word_about(model, topic)}


class ToyPrinter:
    def __init__(self, out: Any, notes: Any) -> None:
        self.out = out
        self.failed = False

    def __call__(self, item: Event) -> None:
        self.failed = self.failed or item.payload.reports_failure()
        match item.payload:
            case ToyTick(n=n):
                self.out.print(f"tick {n}")
            case ToyDone(counted=counted):
                self.out.print(f"counted {counted}")


def toy_count(
    n: Annotated[int, typer.Argument(help="How far to count.")],
    json_output: JsonOpt = False,
) -> None:
    """Count to N, as a stream."""
    stream_in_terminal(
        count(n), json_output=json_output, printer=ToyPrinter, completed=ToyDone, announce=False
    ).exit_if_failed()


def toy_notes(
    notes: Annotated[list[str], typer.Argument(help="Drafts to save.")],
    json_output: JsonOpt = False,
) -> None:
    """Save NOTES as drafts, as a stream."""
    engine, workspace_id = open_workspace(None)
    runtime = current_runtime()
    caller = Caller(engine, workspace_id, None, runtime.settings, files=files_of(runtime))
    stream_in_terminal(
        TOY_NOTES.stream(caller, ToyNotesBody(notes=notes), command_resources()),
        json_output=json_output,
        printer=ToyPrinter,
        completed=ToyDone,
        announce=False,
    ).exit_if_failed()


def toy_word(topic: Annotated[str, typer.Argument(help="What the word is about.")]) -> None:
    """One word about TOPIC, from the model."""
    typer.echo(asyncio.run(word_about(current_runtime().text_model(), topic)))


toy_app = typer.Typer(help="Toy commands.", no_args_is_help=True)


@toy_app.command("echo")
def toy_echo(text: Annotated[str, typer.Argument(help="What to say back.")]) -> None:
    """Say TEXT back."""
    typer.echo(text)


def extend_toy_group(group: typer.Typer) -> None:
    """What `extends` hands a feature: another group's Typer app, to add commands to."""

    @group.command("shout")
    def toy_shout(text: Annotated[str, typer.Argument(help="What to shout back.")]) -> None:
        """Shout TEXT back."""
        typer.echo(text.upper())


# --------------------------------------------------------------- its MCP tool


class ToyCountInput(BaseModel):
    n: int = Field(ge=0, le=20, description="How far to count.")


@dataclass(frozen=True)
class ToyPlan:
    """What a streamed operation's plan carries (app.operations.StreamPlan)."""

    caller: Any
    n: int
    reservation_id: str | None = None  # the toy reserves no quota


def register_tools(server: Any, face: Any) -> None:
    """The toy's MCP tools (its feature's `mcp`): `toy_count` runs the same stream as
    `toy-count` and GET /api/v1/toy/count/{n}, its result the completion event."""
    from socialgen.mcp_server.access import KEY
    from socialgen.mcp_server.running import run_stream
    from socialgen.mcp_server.tooling import add_tool, hints, in_thread

    async def toy_count_tool(context: Any, request: ToyCountInput) -> ToyDone:
        who = await in_thread(face.caller, context, None, KEY)
        return await run_stream(
            context,
            lambda caller, body: ToyPlan(caller, body.n),
            who,
            request,
            lambda plan: count(plan.n),
            ToyDone,
        )

    add_tool(
        server, "toy_count", ToyCountInput, toy_count_tool, ToyDone, hints(read_only=True),
        title="Count", description="Count to n, as the toy's stream does.",
    )  # fmt: skip


# ----------------------------------------------------- its lifespan and start work


@asynccontextmanager
async def toy_lifespan(app: FastAPI) -> AsyncIterator[None]:
    app.state.toy = "running"
    try:
        yield
    finally:
        app.state.toy = "stopped"


STARTED: list[Any] = []  # the engines `serve`'s start work was given


def toy_start(engine: Any, runtime: Any) -> None:
    STARTED.append(engine)


FEATURE = Feature(
    name="toy",
    order=99,
    routers=("tests.toy_feature:router",),
    commands=(
        ("toy-count", "tests.toy_feature:toy_count"),
        ("toy-word", "tests.toy_feature:toy_word"),
        ("toy-notes", "tests.toy_feature:toy_notes"),
    ),
    groups=(Group("toy", "tests.toy_feature:toy_app", "Toy commands, loaded when named."),),
    extends=(("toy", "tests.toy_feature:extend_toy_group"),),
    streams="tests.toy_feature:STREAMS",
    lifespans=("tests.toy_feature:toy_lifespan",),
    serve_start=("tests.toy_feature:toy_start",),
    mcp=("tests.toy_feature:register_tools",),
    operations=("tests.toy_feature:TOY_NOTES",),
)
