"""`socialgen mcp` answers a line it cannot read, instead of leaving the client waiting,
and reads no line past its cap (4 MB): a real process fed raw lines, and the reader
on a stream of the test's."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from typing import Any

from socialgen.mcp_server.stdio import MAX_FRAME_BYTES, Oversized, Refusal, parse, read_frame
from tests.conftest import Store
from tests.mcp_support import SRC


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


INITIALIZE = line(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
)
INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def run_mcp(lines: list[bytes]) -> list[dict[str, Any]]:
    """Every line `socialgen mcp` answers to `lines` (stdin then closed)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (SRC, os.environ.get("PYTHONPATH")))),
    }
    done = subprocess.run(
        [sys.executable, "-m", "socialgen", "mcp"],
        input=b"".join(lines),
        capture_output=True,
        env=env,
        timeout=120,
        check=True,
    )
    return [json.loads(answer) for answer in done.stdout.splitlines()]


def test_bad_and_oversized_lines_are_answered_and_the_session_goes_on(store: Store) -> None:
    huge = {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "x"}}
    huge["params"]["arguments"] = {"userInput": "y" * (MAX_FRAME_BYTES + 1024)}
    answers = run_mcp(
        [
            INITIALIZE,
            INITIALIZED,
            b"this is not JSON\n",
            b'{"jsonrpc": "2.0", "id": 5, "method": 7}\n',
            line(huge),
            b'{"jsonrpc": "2.0", "id": "\xff\xfe"}\n',  # not UTF-8
            line({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        ]
    )
    by_id = {answer["id"]: answer for answer in answers if answer["id"] is not None}
    unnamed = [answer["error"] for answer in answers if answer["id"] is None]
    assert by_id[1]["result"]["serverInfo"]["name"] == "socialgen"
    assert by_id[5]["error"] == {
        "code": -32600,
        "message": "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
    }
    assert by_id[6]["error"] == {
        "code": -32600,
        "message": "Invalid Request: the message is larger than 4 MB (4194304 bytes), the "
        "most a line may hold on stdio; it was skipped",
    }
    assert {tool["name"] for tool in by_id[7]["result"]["tools"]} >= {"write_post", "get_post"}
    assert [error["code"] for error in unnamed] == [-32700, -32700]
    assert unnamed[0]["message"].startswith("Parse error: the line is not JSON (")
    assert len(answers) == 6


class Endless(io.RawIOBase):
    """`size` bytes of one line, made as they are read (never held whole)."""

    def __init__(self, size: int, then: bytes) -> None:
        self.left = size
        self.then = then

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left > 0:
            count = min(len(buffer), self.left)
            buffer[:count] = b"a" * count
            self.left -= count
            return count
        count = min(len(buffer), len(self.then))
        buffer[:count], self.then = self.then[:count], self.then[count:]
        return count


def test_a_line_past_the_cap_is_skipped_without_being_held() -> None:
    cap = 1024 * 1024
    wire = io.BufferedReader(
        Endless(40 * cap, then=b'\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    )
    tracemalloc.start()
    try:
        skipped = read_frame(wire, cap)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(skipped, Oversized)
    assert peak < 3 * cap  # 40 MB went by; at most the cap and a piece were held
    after = read_frame(wire, cap)
    assert after == b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'
    assert read_frame(wire, cap) is None


def test_a_line_of_exactly_the_cap_is_read() -> None:
    message = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert (
        read_frame(io.BufferedReader(io.BytesIO(message + b"\n")), len(message)) == message + b"\n"
    )
    cut = read_frame(io.BufferedReader(io.BytesIO(message + b"\n")), len(message) - 1)
    assert isinstance(cut, Oversized)


def test_the_id_of_a_cut_line_is_read_only_where_it_leads() -> None:
    def answered_id(head: bytes) -> Any:
        refusal = parse(Oversized(head), 10)
        assert isinstance(refusal, Refusal)
        return refusal.answer.id

    assert answered_id(b'{"jsonrpc":"2.0","id":12,"method":"tools/call","par') == 12
    assert answered_id(b'{ "id" : "call-1", "jsonrpc": "2.0", "met') == "call-1"
    # An "id" further in may be an argument's, not the request's: none is claimed.
    assert answered_id(b'{"method":"tools/call","params":{"id":4,') is None
    assert answered_id(b"aaaaaaaa") is None
    assert parse(b"  \n", 10) is None  # a blank line: nothing to answer
