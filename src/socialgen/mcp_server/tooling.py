"""Registering a tool from its input model, and the one error rule of every tool.

The SDK builds a tool's input schema from its function's parameters; a tool here is
described by a pydantic model instead (inputs.py), so `add_tool` gives the function
one parameter per field of the model (named by its alias: `accountIds`, `userInput`),
with the field's type, JSON schema and description, and hands the handler the model
validated from the arguments.

Errors: a domain error (errors.py) is the tool's error with the service's message,
SPEC.md's ("Post not found", "... 3000 characters ..."); anything else is the SDK's
generic tool error (the exception stays in the server's log), never a protocol
error, so the session goes on.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar, cast, get_type_hints

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from socialgen.http.body_models import without_readers
from socialgen.kit.errors import SocialgenError
from socialgen.kit.text_check import check_text

logger = logging.getLogger("socialgen.mcp")

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")


def hints(
    *, read_only: bool, destructive: bool = False, idempotent: bool = False
) -> ToolAnnotations:
    """The annotations a client reads to decide what to confirm with its user. Every
    tool works on socialgen's own store (a closed world), except publishing."""
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive if not read_only else None,
        idempotent_hint=idempotent if not read_only else None,
        open_world_hint=False,
    )


WRITES = hints(read_only=False)  # each call writes new drafts: not idempotent


def add_tool(
    server: MCPServer[Any],
    name: str,
    model: type[M],
    handler: Callable[[Context[Any, Any], M], Awaitable[R]],
    result: Any,
    annotations: ToolAnnotations,
    *,
    title: str,
    description: str,
) -> None:
    """Register `handler` as the tool `name`, its arguments described by `model` and
    its structured result by `result` (a model: a view, kit/views.py, or a payload)."""
    parameters = _parameters(model)

    async def tool(**arguments: Any) -> Any:
        context: Context[Any, Any] = arguments.pop("ctx")
        try:
            check_text(arguments)  # as every HTTP body: no control character, no surrogate
            request = model.model_validate(arguments)
            return await handler(context, request)
        except SocialgenError as error:
            raise ToolError(error.message) from None
        except ValidationError as error:
            raise ToolError(_first_problem(error)) from None

    tool.__name__ = name
    context_parameter = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*parameters, context_parameter], return_annotation=result
    )
    tool.__annotations__ = {
        **{parameter.name: parameter.annotation for parameter in parameters},
        "ctx": Context,
        "return": result,
    }
    server.add_tool(
        tool,
        name=name,
        title=title,
        description=description,
        annotations=annotations,
        structured_output=True,
    )


def _parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """One keyword parameter per field: its alias, its annotation as written (with its
    JSON schema), its description; required when the model's schema says so (a body
    model keeps a field optional so that its service, not pydantic, words the error)."""
    types = get_type_hints(model, include_extras=True)
    required = set(model.model_json_schema(by_alias=True).get("required", ()))
    parameters = []
    for field_name, field in model.model_fields.items():
        name = field.alias or field_name
        # A type built from data at run time: Any to mypy.
        # The body models' `reads` validators run in `tool`, through the model: the
        # SDK checks the type alone.
        annotation = cast(Any, Annotated)[
            without_readers(types[field_name]), Field(description=field.description)
        ]
        default: Any = inspect.Parameter.empty
        if name not in required and not field.is_required():
            default = field.get_default(call_default_factory=True)
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    # The tool's own arguments first, the workspace (rarely given) last.
    parameters.sort(key=lambda parameter: parameter.name == "workspaceId")
    return parameters


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "arguments"
    return f"Invalid {where}: {first.get('msg', 'invalid value')}"


async def in_thread(function: Callable[..., R], *args: Any) -> R:
    """Blocking work (a transaction, a network call) off the event loop, which keeps
    answering other requests and the client's cancellations."""
    return await anyio.to_thread.run_sync(function, *args)
