"""`socialgen chat`, `socialgen post` and `socialgen batch`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli_events import JsonLines, consume, current_model, hint_better_model
from socialgen.cli_support import JsonOpt, WorkspaceOpt, console

if TYPE_CHECKING:
    from socialgen.drafting.caller import Caller
    from socialgen.events import Event

StyleOpt = Annotated[
    str | None, typer.Option("--style", help="Content style id to write in.", show_default=False)
]
ConversationOpt = Annotated[
    str | None,
    typer.Option("--conversation", help="Continue this conversation.", show_default=False),
]


def chat(
    message: Annotated[
        str | None, typer.Argument(help="Your message; leave out for an interactive chat.")
    ] = None,
    conversation: ConversationOpt = None,
    style: StyleOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Ask anything, or ask for a post: the answer streams as it is written."""
    from socialgen.generation.chat import run_chat
    from socialgen.generation.plan import prepare_chat
    from socialgen.generation.schemas import ChatRequest

    caller = _caller(workspace, json_output)
    if message is not None:
        plan = prepare_chat(
            caller,
            ChatRequest(userInput=message, conversationId=conversation, contentStyleId=style),
        )
        _stream(run_chat(plan, current_model()), json_output)
        hint_better_model(json_output)
        return
    notes = console(stderr=True)
    notes.print("Chat with socialgen. An empty line or Ctrl-D ends it.", style="dim")
    while True:
        try:
            line = input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not line or line.lower() in ("exit", "quit"):
            break
        plan = prepare_chat(
            caller, ChatRequest(userInput=line, conversationId=conversation, contentStyleId=style)
        )
        conversation = (
            _stream(run_chat(plan, current_model()), json_output, stop_on_error=False)
            or conversation
        )
    hint_better_model(json_output)


def post(
    topic: Annotated[str, typer.Argument(help="What the post is about (URLs are read).")],
    conversation: ConversationOpt = None,
    post_id: Annotated[
        str | None, typer.Option("--post", help="Regenerate this post (a new version).")
    ] = None,
    style: StyleOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Write one post; it streams as it is written and is saved as a draft."""
    from socialgen.generation.plan import prepare_post
    from socialgen.generation.schemas import GeneratePostRequest
    from socialgen.generation.single import run_generate_post

    caller = _caller(workspace, json_output)
    plan = prepare_post(
        caller,
        GeneratePostRequest(
            userInput=topic, conversationId=conversation, postId=post_id, contentStyleId=style
        ),
    )
    _stream(run_generate_post(plan, current_model()), json_output)
    hint_better_model(json_output)


def batch(
    topic: Annotated[str, typer.Argument(help="The base idea for all five variations.")],
    regenerate: Annotated[
        list[str] | None,
        typer.Option("--regenerate", help="Regenerate only this draft (repeat for several)."),
    ] = None,
    extra_ids: Annotated[
        list[str] | None,
        typer.Argument(help="More draft ids after --regenerate ID.", show_default=False),
    ] = None,
    style: StyleOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Five drafts: Story-driven, Educational, Thought-provoking, Actionable, Conversational."""
    from socialgen.errors import BadRequest
    from socialgen.generation.batch import run_batch
    from socialgen.generation.plan import prepare_batch
    from socialgen.generation.render import BatchPrinter
    from socialgen.generation.schemas import BatchRequest

    if extra_ids and not regenerate:
        raise BadRequest(f"Unexpected arguments {' '.join(extra_ids)}: quote the topic")
    post_ids = [*(regenerate or []), *(extra_ids or [])] if regenerate else None
    caller = _caller(workspace, json_output)
    plan = prepare_batch(
        caller, BatchRequest(userInput=topic, contentStyleId=style, postIds=post_ids)
    )
    events = run_batch(plan, current_model())
    if json_output:
        _stream(events, json_output)
        return
    with BatchPrinter(console(), console(stderr=True)) as printer:
        failed = consume(events, printer)
    if failed:
        raise typer.Exit(1)
    hint_better_model(json_output)


def _caller(workspace: str | None, json_output: bool) -> Caller:
    from socialgen.cli_support import open_workspace
    from socialgen.drafting.caller import Caller

    engine, workspace_id = open_workspace(workspace)
    if not json_output:
        console(stderr=True).print(f"model: {current_model().name}", style="dim")
    return Caller(engine=engine, workspace_id=workspace_id, user_id=None)


def _stream(
    events: AsyncIterator[Event], json_output: bool, *, stop_on_error: bool = True
) -> str | None:
    """Print a chat/post stream; returns the conversation id it used."""
    from socialgen.generation.render import StreamPrinter

    printer = JsonLines() if json_output else StreamPrinter(console(), console(stderr=True))
    if consume(events, printer) and stop_on_error:
        raise typer.Exit(1)
    return printer.conversation_id if isinstance(printer, StreamPrinter) else None
