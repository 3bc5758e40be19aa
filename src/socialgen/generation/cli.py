"""`socialgen chat`, `socialgen post` and `socialgen batch`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.events import (
    StreamResult,
    announce_model,
    hint_better_model,
    stream_in_terminal,
)
from socialgen.cli.refs import resolve_each, resolve_in
from socialgen.cli.support import JsonOpt, WorkspaceOpt, console
from socialgen.files.backends import files_of
from socialgen.generation.topic_guard_cli import check_topic

if TYPE_CHECKING:
    from socialgen.ai.early_stream import EarlyStream
    from socialgen.ai.model import TextModel
    from socialgen.app.caller import Caller
    from socialgen.events import Event
    from socialgen.events.chat import ChatResponse, PostIds
    from socialgen.generation.plan import PostPlan

StyleOpt = Annotated[
    str | None,
    typer.Option("--style", help="Content style to write in (name or id).", show_default=False),
]
ConversationOpt = Annotated[
    str | None,
    typer.Option(
        "--conversation",
        help="Continue this conversation (id or 6+ characters of it).",
        show_default=False,
    ),
]


def chat(
    ctx: typer.Context,
    message: Annotated[
        str | None, typer.Argument(help="Your message; leave out for an interactive chat.")
    ] = None,
    conversation: ConversationOpt = None,
    style: StyleOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Ask anything, or ask for a post: the answer streams as it is written."""
    from socialgen.cli.events import command_resources
    from socialgen.generation.operations import CHAT
    from socialgen.generation.schemas import ChatRequest

    if message is not None:  # `socialgen chat recent`: `posts recent` was meant, perhaps
        check_topic(ctx, message, "chat")
    caller = _caller(workspace)
    conversation = resolve_in(caller.engine, caller.workspace_id, "conversation", conversation)
    style = resolve_in(caller.engine, caller.workspace_id, "style", style)
    if message is not None:
        request = ChatRequest(userInput=message, conversationId=conversation, contentStyleId=style)
        _stream(CHAT.stream(caller, request, command_resources()), json_output).finish()
        return
    announce_model(json_output)
    notes = console(stderr=True)
    notes.print("Chat with socialgen. An empty line or Ctrl-D ends it.", style="dim")
    while True:
        try:
            line = input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not line or line.lower() in ("exit", "quit"):
            break
        request = ChatRequest(userInput=line, conversationId=conversation, contentStyleId=style)
        events = CHAT.stream(caller, request, command_resources())
        # An answer that failed is reported and the chat goes on.
        answer = _stream(events, json_output, announce=False).completed
        conversation = answer.conversationId if answer is not None else conversation
    hint_better_model(json_output)


def post(
    ctx: typer.Context,
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
    from socialgen.cli.support import current_runtime
    from socialgen.generation.head_start import head_start

    check_topic(ctx, topic, "post")  # `socialgen post recent`: before any model call
    # The provider request first, when the prompt needs nothing from the store: it
    # runs while the store opens and the plan checks (head_start.py).
    early = None
    if conversation is None and post_id is None and style is None:
        early = head_start(current_runtime(), topic)
    try:
        plan = _post_plan(topic, conversation, post_id, style, workspace)
        from socialgen.cli.events import command_resources
        from socialgen.generation.operations import WRITE_POST

        resources = command_resources()
        model = resources.text()  # from the settings object: the early one must agree
        if early is not None and not early.adopt(model, plan.caller.settings.max_tokens):
            early = None  # adopt() cancelled it
        if early is not None:  # the answer already on its way stands for the model
            resources = replace(resources, text=partial(_early_model, early))
        _stream(WRITE_POST.run(plan, resources), json_output).finish()
    finally:
        if early is not None:
            early.close()  # a refused plan: the early answer is dropped, unread


def _early_model(early: EarlyStream) -> TextModel:
    return early


def _post_plan(
    topic: str,
    conversation: str | None,
    post_id: str | None,
    style: str | None,
    workspace: str | None,
) -> PostPlan:
    from socialgen.generation.operations import WRITE_POST
    from socialgen.generation.schemas import GeneratePostRequest

    caller = _caller(workspace)
    conversation = resolve_in(caller.engine, caller.workspace_id, "conversation", conversation)
    post_id = resolve_in(caller.engine, caller.workspace_id, "post", post_id)
    style = resolve_in(caller.engine, caller.workspace_id, "style", style)
    return WRITE_POST.prepare(
        caller,
        GeneratePostRequest(
            userInput=topic, conversationId=conversation, postId=post_id, contentStyleId=style
        ),
    )


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
    from socialgen.cli.events import command_resources
    from socialgen.generation.batch_events import BatchComplete
    from socialgen.generation.operations import WRITE_BATCH
    from socialgen.generation.render import BatchPrinter
    from socialgen.generation.schemas import BatchRequest
    from socialgen.kit.errors import BadRequest

    if extra_ids and not regenerate:
        raise BadRequest(f"Unexpected arguments {' '.join(extra_ids)}: quote the topic")
    post_ids = [*(regenerate or []), *(extra_ids or [])] if regenerate else None
    caller = _caller(workspace)
    style = resolve_in(caller.engine, caller.workspace_id, "style", style)
    if post_ids is not None:
        post_ids = resolve_each(
            caller.engine, caller.workspace_id, "post", post_ids, keep_unknown=True
        )
    request = BatchRequest(userInput=topic, contentStyleId=style, postIds=post_ids)
    stream_in_terminal(
        WRITE_BATCH.stream(caller, request, command_resources()),
        json_output=json_output,
        printer=BatchPrinter,
        completed=BatchComplete,
    ).finish()


def _caller(workspace: str | None) -> Caller:
    from socialgen.app.caller import Caller
    from socialgen.cli.support import current_runtime, open_workspace

    engine, workspace_id = open_workspace(workspace)
    runtime = current_runtime()
    return Caller(
        engine=engine,
        workspace_id=workspace_id,
        user_id=None,
        settings=runtime.settings,
        files=files_of(runtime),
        rankers=runtime.held.rankers,
    )


def _stream(
    events: AsyncIterator[Event], json_output: bool, *, announce: bool = True
) -> StreamResult[PostIds | ChatResponse]:
    """A chat/post stream: it ends with the saved draft's ids or the chat answer, each
    naming the conversation it used."""
    from socialgen.events.chat import ChatResponse, PostIds
    from socialgen.generation.render import StreamPrinter

    return stream_in_terminal(
        events,
        json_output=json_output,
        printer=StreamPrinter,
        completed=(PostIds, ChatResponse),
        announce=announce,
    )
