"""What the bench scripts share: starting and stopping a real `socialgen serve`,
and the fake provider's paced answers."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
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


POST_PREFIXES = ("Write a LinkedIn post about", "Write a LinkedIn post for day")
SENTENCES = (
    "Small teams ship weekly because nobody waits for permission.",
    "Every change got smaller, so every review got faster.",
    "Ten small releases show ten surprises one at a time.",
    "A short note on why beats a long meeting on what.",
    "Customers noticed the fixes before we announced them.",
    "We stopped batching fixes and started shipping them.",
    "The release checklist shrank from two pages to five lines.",
)


def post_text(chars: int) -> str:
    """Exactly `chars` characters of sentences, ending with a full stop."""
    words: list[str] = []
    index = 0
    while sum(len(word) + 1 for word in words) < chars:
        words.append(SENTENCES[index % len(SENTENCES)])
        index += 1
    text = " ".join(words)[: chars - 1].rstrip()
    return text + "." * (chars - len(text))


class PacedResponder:
    """The fake provider's answers for a bench: post-writing requests at a fixed pace
    (their arrival times recorded), every side request (intent, questions, a
    calendar's theme plan) at once."""

    def __init__(self, text: str, chunk_chars: int, token_delay: float) -> None:
        self.text = text
        self.chunk_chars = chunk_chars
        self.token_delay = token_delay
        self.arrivals: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Any:
        from tests.fakes.openai_server import Reply, last_user_message, wants_json

        prompt = last_user_message(body)
        if wants_json(body):
            if prompt.startswith("Decide what the user wants"):
                return Reply.json({"intent": "post"})
            if prompt.startswith("Plan ") and "content calendar" in prompt:
                count = int(prompt.split()[1])
                themes = [
                    {"theme": f"Theme {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)
                ]
                return Reply.json({"posts": themes})
            return Reply.json({"questions": ["Who is it for?", "What changed?", "Any numbers?"]})
        if prompt.startswith(POST_PREFIXES):
            with self._lock:
                self.arrivals.append(time.monotonic())
            return Reply(text=self.text, chunk_chars=self.chunk_chars, token_delay=self.token_delay)
        return Reply(text="A short answer.")

    def count(self) -> int:
        with self._lock:
            return len(self.arrivals)

    def since(self, mark: int) -> list[float]:
        with self._lock:
            return list(self.arrivals[mark:])

    def arrival_after(self, mark: int) -> float:
        with self._lock:
            if len(self.arrivals) <= mark:
                raise RuntimeError("the post-writing request never reached the fake")
            return self.arrivals[mark]
