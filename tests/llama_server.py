"""llama-cpp-python's own OpenAI-compatible server on 127.0.0.1, running the embedded
GGUF: a real provider for tests and benches (no fake, no network).

It refuses `response_format: json_schema` (only "text" and "json_object" are
valid there) and takes a llama.cpp `grammar` body field, as many self-hosted
providers do, so it exercises the structured-answer ladder for real.

    with LlamaServer() as server:
        env = server.env()  # SOCIALGEN_MODEL, SOCIALGEN_API_BASE, OPENAI_API_KEY
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

MODEL_ALIAS = "smollm2-135m"
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    def __init__(self, model_path: Path | None = None, *, n_ctx: int = 4096) -> None:
        if model_path is None:
            from socialgen.ai.local import embedded_model_path

            model_path = embedded_model_path()
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LlamaServer:
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            "2",
            "--verbose",
            "False",
        ]
        environment = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                stderr = self.process.stderr
                error = stderr.read().decode(errors="replace") if stderr else ""
                raise RuntimeError(f"llama_cpp.server exited: {error[-2000:]}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.close()
        raise RuntimeError(f"llama_cpp.server did not start within {START_TIMEOUT:.0f} s")

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()

    def env(self, *, small: bool = False) -> dict[str, str]:
        """The environment that points socialgen at this server."""
        values = {
            "SOCIALGEN_MODEL": f"openai/{MODEL_ALIAS}",
            "SOCIALGEN_API_BASE": self.base_url,
            "OPENAI_API_KEY": "sk-local",
        }
        if small:
            values["SOCIALGEN_SMALL_MODEL"] = "1"
        return values

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()
