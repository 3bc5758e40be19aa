"""What the bench scripts share: starting and stopping a real `socialgen serve`,
and keeping the fake provider quiet when clients hang up."""

from __future__ import annotations

import socket
import socketserver
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def socialgen_command() -> list[str]:
    """The `socialgen` of the running environment."""
    script = Path(sys.executable).parent / "socialgen"
    return [str(script)] if script.exists() else [sys.executable, "-m", "socialgen"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    """`socialgen serve` on 127.0.0.1:port, once it answers (30 s at most)."""
    command = [*socialgen_command(), "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as sink:
        server = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"server exited ({server.returncode}):\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    stop_server(server)
    raise SystemExit(f"server did not answer within 30 s:\n{log.read_text()[-2000:]}")


def stop_server(server: subprocess.Popen[bytes]) -> str:
    """Stop it (SIGTERM, then SIGKILL after 10 s); says how it ended."""
    if server.poll() is not None:
        return f"had exited ({server.returncode})"
    server.terminate()
    try:
        server.wait(timeout=10)
        return f"SIGTERM, exit status {server.returncode}"
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return "did not stop within 10 s of SIGTERM: killed"


def quiet_fake_errors() -> None:
    """A client that goes away with a keep-alive connection open resets it: not an
    error worth a traceback from the fake provider's server."""
    from tests.fakes import openai_server

    def handle_error(self: socketserver.BaseServer, request: Any, address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            socketserver.BaseServer.handle_error(self, request, address)

    openai_server._Server.handle_error = handle_error  # type: ignore[method-assign,assignment]
