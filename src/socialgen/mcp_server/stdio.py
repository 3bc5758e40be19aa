"""The stdio transport of `socialgen mcp`: one JSON-RPC message a line each way.

The SDK's own stdio transport drops a line it cannot parse without a word (the client
then waits forever for its answer) and reads a line whole, however long (a 200 MB line
took 654 MB). This one answers a line that is not JSON with a JSON-RPC parse error
(-32700) and one that is JSON but no JSON-RPC message with an invalid request (-32600,
with the request's id when it has one), then reads on. A line longer than
MAX_FRAME_BYTES is read no further than the cap: the rest is skipped in small pieces
and the answer is an invalid request naming the cap (with the id, when the line starts
with it, as clients write it: the caller's request then fails instead of hanging).

While it serves, fd 0 reads the null device and fd 1 writes to stderr (as the SDK's
transport does): a stray print, or a child process, cannot tear a frame.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

MAX_FRAME_BYTES = 4 * 1024 * 1024  # as the SDK caps an HTTP body (4 MiB)
_SKIP_BYTES = 64 * 1024  # what an oversized line is read in, past the cap
# The id of a line cut at the cap, when the object starts with it (`{"jsonrpc":
# "2.0","id":7,...` or `{"id":7,...`, as clients write it): a top-level key for sure.
_LEADING_ID = re.compile(
    rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
)

RequestId = str | int | None


@dataclass(frozen=True)
class Oversized:
    """A line past the cap: only its first bytes are kept (to find its id)."""

    head: bytes


@dataclass(frozen=True)
class Refusal:
    """A line that carries no message: the error it is answered with."""

    answer: types.JSONRPCError


async def serve_stdio(server: MCPServer[Any], max_frame: int = MAX_FRAME_BYTES) -> None:
    """`server` on this process's stdin and stdout, until stdin ends."""
    # What MCPServer.run_stdio_async does, on this transport: the SDK gives no other
    # way to run an MCPServer on streams of one's own.
    lowlevel = server._lowlevel_server
    with claimed_stdio() as (wire_in, wire_out):
        async with stdio_streams(wire_in, wire_out, max_frame) as (read, write):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


@asynccontextmanager
async def stdio_streams(
    wire_in: BinaryIO, wire_out: BinaryIO, max_frame: int = MAX_FRAME_BYTES
) -> AsyncIterator[
    tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]
]:
    """The server's streams over two binary files: messages read from `wire_in`,
    answers written to `wire_out`, and the answers to bad lines written in between."""
    if max_frame < 1:
        raise ValueError(f"max_frame must be at least 1 byte, got {max_frame}")
    to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_wire, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    # The reader's own handle: the server closing its side does not cut a bad line's
    # answer short, and the writer ends once both are closed.
    answers = to_wire.clone()

    reading = anyio.CancelScope()

    async def read() -> None:
        with reading:
            async with to_server, answers:
                await _pump(wire_in, max_frame, to_server, answers)

    async def write() -> None:
        async with from_server:
            async for outgoing in from_server:
                line = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                await anyio.to_thread.run_sync(_write_line, wire_out, line.encode() + b"\n")

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield from_wire, to_wire
        finally:
            # The server is done (stdin ended, as a rule): nothing more is read, and
            # the writer ends once what is queued is written.
            reading.cancel()
            await to_wire.aclose()


async def _pump(
    wire_in: BinaryIO,
    max_frame: int,
    to_server: ObjectSendStream[SessionMessage | Exception],
    answers: ObjectSendStream[SessionMessage],
) -> None:
    while True:
        # Read and parse off the loop: a line may be megabytes.
        message = await anyio.to_thread.run_sync(
            _next_message, wire_in, max_frame, abandon_on_cancel=True
        )
        if message is _END:
            return
        if isinstance(message, Refusal):
            await answers.send(SessionMessage(message.answer))
        elif message is not None:
            await to_server.send(SessionMessage(message))


_END = object()


def _next_message(wire: BinaryIO, max_frame: int) -> Any:
    """The next line's message, Refusal or None (a blank line); _END at the end."""
    frame = read_frame(wire, max_frame)
    return _END if frame is None else parse(frame, max_frame)


def read_frame(wire: BinaryIO, max_frame: int) -> bytes | Oversized | None:
    """The next line (its newline kept), an Oversized one, or None at the end. Holds
    at most `max_frame` + 1 bytes of a line, however long it is."""
    line = wire.readline(max_frame + 1)
    if not line:
        return None
    if len(line) <= max_frame or line.endswith(b"\n"):
        return line
    head = line[:512]
    del line
    while True:  # skip the rest of the line, a piece at a time
        piece = wire.readline(_SKIP_BYTES)
        if not piece or piece.endswith(b"\n"):
            return Oversized(head)


def parse(frame: bytes | Oversized, max_frame: int) -> types.JSONRPCMessage | Refusal | None:
    """The message on a line, the error to answer it with, or None (a blank line)."""
    if isinstance(frame, Oversized):
        return _error(
            _leading_id(frame.head),
            types.INVALID_REQUEST,
            f"Invalid Request: the message is larger than {_size(max_frame)} ({max_frame} "
            "bytes), the most a line may hold on stdio; it was skipped",
        )
    if not frame.strip():
        return None  # no message, nothing to answer (a blank line between two)
    try:
        return types.jsonrpc_message_adapter.validate_json(frame, by_name=False)
    except ValidationError as error:
        problems = error.errors(include_url=False)
        if any(problem["type"] == "json_invalid" for problem in problems):
            detail = problems[0]["msg"].removeprefix("Invalid JSON: ")
            return _error(None, types.PARSE_ERROR, f"Parse error: the line is not JSON ({detail})")
        return _error(
            _id_of(frame),
            types.INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )


@contextmanager
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The protocol's own handles on stdin and stdout, while fd 0 reads the null
    device and fd 1 writes to stderr; both are put back at the end. Where descriptors
    cannot be moved, stdin and stdout serve as they are."""
    sys.stdout.flush()
    try:
        wire_in_fd, wire_out_fd = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:
        yield sys.stdin.buffer, sys.stdout.buffer
        return
    try:
        # Never closed: a reading thread may still wait on the descriptor at the end.
        with (
            os.fdopen(wire_in_fd, "rb", closefd=False) as wire_in,
            os.fdopen(wire_out_fd, "wb", closefd=False) as wire_out,
        ):
            yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_in_fd, 0)
        os.dup2(wire_out_fd, 1)


def _write_line(wire: BinaryIO, line: bytes) -> None:
    wire.write(line)
    wire.flush()


def _error(request_id: RequestId, code: int, message: str) -> Refusal:
    error = types.ErrorData(code=code, message=message)
    return Refusal(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _id_of(frame: bytes) -> RequestId:
    """The id of a JSON object that is no JSON-RPC message, if it has a usable one."""
    try:
        found = json.loads(frame)
    except ValueError:
        return None
    value = found.get("id") if isinstance(found, dict) else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def _leading_id(head: bytes) -> RequestId:
    match = _LEADING_ID.match(head)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:  # a string with a bad escape
        return None
    return value if isinstance(value, str | int) else None


def _size(count: int) -> str:
    mib = count / (1024 * 1024)
    return f"{mib:g} MB" if mib >= 1 else f"{count / 1024:g} KB"
