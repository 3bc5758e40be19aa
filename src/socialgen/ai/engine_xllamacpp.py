"""The xllamacpp engine (the default install): llama.cpp's own server, run in-process
from a prebuilt wheel, asked through handle_chat_completions with the OpenAI request
body llama.cpp's server takes. Its answer streams to a callback as OpenAI chunks;
the callback returning True cancels the request (llama.cpp frees the slot at once).

The server also opens an HTTP listener, always. It listens on a Unix socket in a
directory only this user can enter, never on a TCP port another local user or a web
page could reach; socialgen itself never sends it anything.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from socialgen.ai.engine_contract import Emit, Generation
from socialgen.ai.model import Output

CONTEXT_TOKENS = 4096


class EngineFailure(RuntimeError):
    """llama.cpp's server answered with an error (its message)."""


class XLlamaCppEngine:
    """The servers this engine object started, one per GGUF, with their socket folders."""

    def __init__(self) -> None:
        self._servers: dict[Path, Any] = {}
        self._socket_dirs: dict[Path, str] = {}

    def generate(self, path: Path, request: Generation, emit: Emit) -> None:
        _generate(self._load(path), request, emit)

    def _load(self, path: Path) -> Any:
        server = self._servers.get(path)
        if server is None:
            socket_dir = tempfile.mkdtemp(prefix="socialgen-llama-")  # mode 0700
            try:
                server = _start(path, socket_dir)
            except Exception:
                shutil.rmtree(socket_dir, ignore_errors=True)
                raise
            self._servers[path] = server
            self._socket_dirs[path] = socket_dir
        return server

    def unload_all(self) -> None:
        """Stop every server (its destructor joins llama.cpp's loop thread) while the
        interpreter still runs, and remove the socket directories."""
        self._servers.clear()
        for folder in self._socket_dirs.values():
            shutil.rmtree(folder, ignore_errors=True)
        self._socket_dirs.clear()


def _generate(server: Any, request: Generation, emit: Emit) -> None:
    body: dict[str, Any] = {
        "messages": request.messages,
        "stream": True,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "repeat_penalty": request.repeat_penalty,
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    body.update(_format_options(request.output))
    failure: list[str] = []

    def on_chunk(chunk: dict[str, Any]) -> bool:
        # Runs on the engine's side of the call: an exception here would be swallowed
        # (and end the stream silently), so nothing in it may raise.
        try:
            choices = chunk.get("choices")
            if not choices:
                failure.append(_error_text(chunk))
                return True
            text = (choices[0].get("delta") or {}).get("content")
            return bool(text) and emit(str(text))
        except Exception as error:
            failure.append(f"{type(error).__name__}: {error}")
            return True

    server.handle_chat_completions(body, on_chunk)
    if failure:
        raise EngineFailure(failure[0])


def _format_options(output: Output | None) -> dict[str, Any]:
    """The body fields llama.cpp's server enforces: a GBNF grammar, a JSON schema
    (compiled by LLGuidance in this build), or any JSON."""
    if output is None:
        return {}
    if output.grammar is not None:
        return {"grammar": output.grammar}
    if output.mode == "json_schema" and output.schema is not None:
        return {"response_format": {"type": "json_object", "schema": output.schema}}
    if output.mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def _error_text(chunk: dict[str, Any]) -> str:
    error = chunk.get("error", chunk)
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def _start(path: Path, socket_dir: str) -> Any:
    # Idle OpenMP threads sleep instead of spinning: on a busy two-core machine a
    # spinning pool slows every token ten-fold. A write, not a read: OpenMP (in the
    # C library) reads it when the library loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp

    threads = max(1, min(4, os.cpu_count() or 1))
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = CONTEXT_TOKENS
    params.n_parallel = 1  # one answer at a time, as the caller serialises them
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1  # quiet: errors come back in the answer
    params.offline = True  # never reach a hub
    params.cache_ram_mib = 0  # no prompt cache in RAM (8 GB by default)
    # No trial load to fit the model to a device's memory (CPU only, a fixed
    # context), and no warm-up decode: each halves the load (0.8 s -> 0.4 s here).
    params.fit_params = False
    params.warmup = False
    params.endpoint_metrics = False
    params.endpoint_props = False
    params.endpoint_slots = False
    params.n_threads_http = 1
    params.hostnames = [str(Path(socket_dir) / "llama.sock")]
    return xllamacpp.Server(params)
