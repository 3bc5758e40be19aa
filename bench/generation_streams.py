"""One streamed post, as generation_overhead.py and its diagnosis see it: when the
request reached the model and when each content chunk reached the client."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness import Lines, Samples, cpu_seconds, run_lines
from harness.fake import PacedResponder

TOPIC = "why small teams ship weekly"


@dataclass
class StreamRun:
    arrival: float  # the fake (or the model call) got the request
    chunks: list[float]  # when each content chunk reached the client
    started: float = 0.0  # client start (process spawn for a CLI)
    ended: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        if len(self.chunks) < 2:
            return 0.0
        return (len(self.chunks) - 1) / (self.chunks[-1] - self.chunks[0])

    @property
    def first_token(self) -> float:
        return self.chunks[0] - self.arrival


@dataclass
class Series:
    label: str
    runs: list[StreamRun]

    def samples(self, pick: Callable[[StreamRun], float]) -> Samples:
        return Samples([pick(run) for run in self.runs])

    def extra(self, key: str) -> Samples:
        """The runs' `extra[key]` figures."""
        return Samples([run.extra[key] for run in self.runs])

    @property
    def rate(self) -> float:
        return self.samples(lambda run: run.rate).median

    @property
    def first_token(self) -> float:
        return self.samples(lambda run: run.first_token).median

    @property
    def chunks(self) -> int:
        return int(self.samples(lambda run: len(run.chunks)).median)


def delta_times(lines: Lines) -> list[float]:
    """When each chat_delta line of `socialgen post --json` was read."""
    times = []
    for stamp, line in lines.lines:
        item = json.loads(line)
        if item.get("event") == "error":
            raise SystemExit(f"the CLI reported an error: {item}")
        if item.get("event") == "chat_delta":
            times.append(stamp)
    return times


def cli_once(command: Sequence[str], env: dict[str, str], responder: PacedResponder) -> StreamRun:
    """(c): one `socialgen post TOPIC --json` child, its lines read as they arrive."""
    mark = responder.count()

    def watch(pid: int) -> None:  # the child's CPU time when its post request arrives
        responder.probe = lambda: cpu_seconds(pid)

    try:
        lines = run_lines(command, env, timeout=120, on_spawn=watch)
    finally:
        responder.probe = None
    if lines.returncode != 0:
        raise SystemExit(f"socialgen post failed ({lines.returncode}):\n{lines.stderr}")
    arrival = responder.arrival_after(mark)
    startup_cpu = responder.probed_after(mark)
    run = StreamRun(arrival, delta_times(lines), lines.spawned, lines.ended)
    run.extra = {
        "startup": arrival - lines.spawned,
        # Less bent by other load than the wall time: what the child itself ran.
        "startup_cpu": startup_cpu if startup_cpu is not None else float("nan"),
        "first_line": lines.lines[0][0] - lines.spawned,
        "total": lines.ended - lines.spawned,
        "after_last_chunk": lines.lines[-1][0] - run.chunks[-1],
        "teardown": lines.ended - lines.lines[-1][0],
    }
    return run


def post_messages_for(topic: str) -> list[dict[str, str]]:
    """The messages socialgen sends for a post (same prompt templates)."""
    from socialgen.drafting.post_prompt import post_messages

    return post_messages(topic, style=None, sources="", history=[])
