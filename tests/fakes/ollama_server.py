"""A stand-in for an Ollama server's model list (`GET /api/tags`) on 127.0.0.1, with
the fields Ollama gives each model (name, size in bytes, details.parameter_size)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tag(name: str, size: int, parameter_size: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2026-11-01T10:00:00.000000Z",
        "size": size,
        "digest": "a" * 64,
        "details": {
            "format": "gguf",
            "family": "qwen2",
            "parameter_size": parameter_size,
            "quantization_level": "Q4_K_M",
        },
    }


@contextmanager
def running_ollama(models: list[dict[str, Any]]) -> Iterator[str]:
    """The server's address (host:port, as OLLAMA_HOST takes it)."""
    body = json.dumps({"models": models}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/api/tags":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
