#!/usr/bin/env python3
"""Does a batch of five variations cost about as much wall time as one post?

The fake OpenAI-compatible provider (tests/fakes/openai_server.py, on 127.0.0.1) writes
every post at a fixed pace: --chunks chunks of --chunk-chars characters, --token-delay
seconds apart (default 200 chunks, 10 ms: about 2 s per post). JSON side requests (the
refinement questions of generate-post) are answered at once. A batch writes its five
variations concurrently (SOCIALGEN_BATCH_CONCURRENCY, default 5), so its wall time should
stay close to one post's: target batch / single <= 1.3.

Measured, --repeats times each, interleaved, medians:

  direct   one litellm.acompletion(stream=True) vs five at once (asyncio.gather) in this
           process: what litellm itself costs for five concurrent streams;
  inproc   socialgen.generation.plan.prepare_post + single.run_generate_post vs
           prepare_batch + batch.run_batch, with a Runtime's text model, in this
           process on a temporary SOCIALGEN_HOME;
  sse      POST /api/v1/ai-conversation/generate-post/{ws} vs generate-batch-posts/{ws} of
           `socialgen serve` (a subprocess; API key made in-process with
           `socialgen key create`, bound to the default workspace), read
           to the end with httpx;
  sse0     with --before-src DIR (another checkout's src/, e.g. the tree before a
           change): `sse` again from a `socialgen serve` of DIR (first on its
           PYTHONPATH, its own home and key), each run right after the same run of
           `sse`, so before and after share the machine's load; shown with after/before.

Each time runs from sending the request (or calling prepare_*) to the end of the stream.
For a batch it also shows when the five post requests reached the fake (are they really
concurrent?) and when each variation completed. In `direct` and `inproc` the fake shares
this process (and its GIL) with the client; in `sse` the server is its own process.

The home, the fake, the server, its key and the table come from the bench harness
(bench/harness/), which also puts the repository on sys.path (so `tests.fakes` imports
without PYTHONPATH=.). Run from the repository root:

    .venv/bin/python bench/generation_concurrency.py
    .venv/bin/python bench/generation_concurrency.py --modes sse --repeats 5 --profile
    .venv/bin/python bench/generation_concurrency.py --modes sse --before-src ../before/src
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from socialgen.app.runtime import Runtime

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import Samples, Table, bench_env, bench_home, create_key, machine_line, serve
from harness.fake import (
    FakeOpenAI,
    PacedResponder,
    add_pace_options,
    litellm_stream,
    pace_line,
    paced_responder,
)

# isort: on
import httpx

API_PREFIX = "/api/v1/ai-conversation"
POST_PREFIX = "Write a LinkedIn post about"
TOPIC = "why small teams ship weekly"
RATIO_TARGET = 1.3
BATCH_SIZE = 5
BEFORE_MODE = "sse0"  # the sse mode from --before-src's server
now = time.monotonic


@dataclass
class Run:
    elapsed: float
    arrivals: list[float] = field(default_factory=list)  # relative to the start
    completed: list[float] = field(default_factory=list)  # batch items, relative


@dataclass
class Pair:
    mode: str
    single: list[Run] = field(default_factory=list)
    batch: list[Run] = field(default_factory=list)

    @property
    def single_median(self) -> float:
        return Samples([run.elapsed for run in self.single]).median

    @property
    def batch_median(self) -> float:
        return Samples([run.elapsed for run in self.batch]).median


Timed = Callable[[], Awaitable[Run]]


async def timed(responder: PacedResponder, body: Callable[[], Awaitable[list[float]]]) -> Run:
    mark = responder.count()
    started = now()
    completed = await body()
    elapsed = now() - started
    arrivals = [stamp - started for stamp in responder.since(mark)]
    return Run(elapsed, arrivals, [stamp - started for stamp in completed])


# --------------------------------------------------------------------------- direct


def direct_pair(fake: FakeOpenAI, responder: PacedResponder) -> tuple[Timed, Timed]:
    from socialgen.drafting.post_prompt import post_messages

    messages = post_messages(TOPIC, style=None, sources="", history=[])

    async def stream() -> float:
        async for _part in litellm_stream(fake.base_url, messages):
            pass
        return now()

    async def one() -> list[float]:
        await stream()
        return []

    async def five() -> list[float]:
        return list(await asyncio.gather(*(stream() for _ in range(BATCH_SIZE))))

    return (lambda: timed(responder, one)), (lambda: timed(responder, five))


# --------------------------------------------------------------------------- in-process


def inproc_pair(runtime: Runtime, responder: PacedResponder) -> tuple[Timed, Timed]:
    """One Runtime's store and text model for every run, as `serve` keeps one."""
    from socialgen.app.caller import Caller
    from socialgen.files.backends import files_of
    from socialgen.generation.batch import run_batch
    from socialgen.generation.plan import prepare_batch, prepare_post
    from socialgen.generation.schemas import BatchRequest, GeneratePostRequest
    from socialgen.generation.single import run_generate_post
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    engine = runtime.open_store()
    with read_session(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        caller = Caller(
            engine=engine,
            workspace_id=workspace.id,
            user_id=None,
            settings=runtime.settings,
            files=files_of(runtime),
        )
    model = runtime.text_model()

    async def one() -> list[float]:
        plan = prepare_post(caller, GeneratePostRequest(userInput=TOPIC))
        names = [item.name async for item in run_generate_post(plan, model)]
        if "post_ids" not in names:
            raise SystemExit(f"generate-post did not finish: {names[-3:]}")
        return []

    async def five() -> list[float]:
        plan = prepare_batch(caller, BatchRequest(userInput=TOPIC))
        completed = []
        async for item in run_batch(plan, model):
            if item.name == "batch_progress" and item.data["status"] == "completed":
                completed.append(now())
            elif item.name == "batch_complete" and item.data["summary"]["failed"]:
                raise SystemExit(f"batch items failed: {item.data['errors']}")
        return completed

    return (lambda: timed(responder, one)), (lambda: timed(responder, five))


# --------------------------------------------------------------------------- SSE


def sse_pair(
    client: httpx.AsyncClient, base: str, workspace: str, responder: PacedResponder
) -> tuple[Timed, Timed]:
    async def read(path: str) -> list[float]:
        completed: list[float] = []
        names: list[str] = []
        url = f"{base}{API_PREFIX}/{path}/{workspace}"
        async with client.stream("POST", url, json={"userInput": TOPIC}) as response:
            if response.status_code != 200:
                await response.aread()
                raise SystemExit(f"{path} answered {response.status_code}: {response.text}")
            name = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                    names.append(name)
                elif line.startswith("data:") and name == "batch_progress":
                    if '"status":"completed"' in line:
                        completed.append(now())
                elif line.startswith("data:") and name == "error":
                    raise SystemExit(f"{path} stream error: {line}")
        final = "batch_complete" if path == "generate-batch-posts" else "post_ids"
        if final not in names:
            raise SystemExit(f"{path} ended without {final}: {names[-3:]}")
        return completed

    async def one() -> list[float]:
        return await read("generate-post")

    async def five() -> list[float]:
        return await read("generate-batch-posts")

    return (lambda: timed(responder, one)), (lambda: timed(responder, five))


# --------------------------------------------------------------------------- run


async def measure(pair: Pair, single: Timed, batch: Timed, repeats: int) -> None:
    await measure_beside([(pair, single, batch)], repeats)


async def measure_beside(cases: Sequence[tuple[Pair, Timed, Timed]], repeats: int) -> None:
    """Each case's single and batch runs, the cases taking turns run by run."""
    for _pair, single, batch in cases:
        await single()  # warm-up: litellm import and first-use work
        await batch()
    for _ in range(repeats):
        for pair, single, _batch in cases:
            pair.single.append(await single())
        for pair, _single, batch in cases:
            pair.batch.append(await batch())


def report(pairs: Sequence[Pair], floor: float) -> bool:
    print(
        f"\ntarget batch/single <= {RATIO_TARGET} "
        f"(one post alone at the fake's pace: {floor:.2f} s)"
    )
    table = Table("", "single", "batch of 5", "batch/single", "", notes=True)
    ok = True
    for pair in pairs:
        ratio = pair.batch_median / pair.single_median
        verdict = "OK" if ratio <= RATIO_TARGET else "MISSED"
        if pair.mode == "direct":
            verdict = "(baseline: litellm alone)"
        elif pair.mode == BEFORE_MODE:
            verdict = "(the before tree)"
        else:
            ok &= ratio <= RATIO_TARGET
        table.add(
            pair.mode,
            f"{pair.single_median:.3f} s",
            f"{pair.batch_median:.3f} s",
            f"{ratio:.3f}",
            verdict,
        )
    table.print()
    by_mode = {pair.mode: pair for pair in pairs}
    if "sse" in by_mode and BEFORE_MODE in by_mode:
        after, before = by_mode["sse"], by_mode[BEFORE_MODE]
        print(
            f"\nsse after/before: single {after.single_median / before.single_median:.3f}x, "
            f"batch {after.batch_median / before.batch_median:.3f}x"
        )
    print("\nper run (seconds):")
    for pair in pairs:
        singles = ", ".join(f"{run.elapsed:.3f}" for run in pair.single)
        batches = ", ".join(f"{run.elapsed:.3f}" for run in pair.batch)
        print(f"  {pair.mode:8} single [{singles}]  batch [{batches}]")
    print("\nbatch runs: when the 5 post requests reached the fake / when each item completed")
    print("(seconds from the start of the batch, median run):")
    for pair in pairs:
        run = sorted(pair.batch, key=lambda item: item.elapsed)[len(pair.batch) // 2]
        arrivals = ", ".join(f"{stamp:.3f}" for stamp in sorted(run.arrivals))
        completed = ", ".join(f"{stamp:.3f}" for stamp in sorted(run.completed)) or "-"
        one = sorted(pair.single, key=lambda item: item.elapsed)[len(pair.single) // 2]
        first = f"{one.arrivals[0]:.3f}" if one.arrivals else "-"
        print(f"  {pair.mode:8} arrivals [{arrivals}]  completed [{completed}]")
        print(f"  {'':8} (single: post request reached the fake at {first})")
    return ok


def profile_batch(batch: Timed) -> None:
    profiler = cProfile.Profile()

    async def run() -> None:
        profiler.enable()
        await batch()
        profiler.disable()

    asyncio.run(run())
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("\ncProfile of one in-process batch (event-loop thread; sorted by own time):")
    print("\n".join(lines[start : start + 16]))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each (>= 3)")
    add_pace_options(parser, chunks=200)
    parser.add_argument(
        "--modes", default="direct,inproc,sse", help="comma-separated: direct,inproc,sse"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile one in-process batch")
    parser.add_argument(
        "--before-src",
        type=Path,
        help="with sse: also run it from a server of this checkout's src/ (before, after)",
    )
    args = parser.parse_args()
    if args.repeats < 3:
        parser.error("--repeats must be at least 3")
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    if not set(modes) <= {"direct", "inproc", "sse"}:
        parser.error("--modes takes direct, inproc and sse")
    if args.before_src is not None and "sse" not in modes:
        parser.error("--before-src runs the sse mode from another tree: add sse to --modes")

    floor = (args.chunks - 1) * args.token_delay
    print(machine_line())
    print(f"{pace_line(args)}; {args.repeats} runs each after a warm-up, medians")
    responder = paced_responder(args)
    pairs: list[Pair] = []
    with bench_home("socialgen-bench-batch-") as home, FakeOpenAI(responder) as fake:
        env = bench_env(home, **fake.env())
        # The in-process modes open the same home as the server.
        os.environ.clear()
        os.environ.update(env)
        runtime = Runtime()  # read once: after the environment is the home's
        try:
            ok = asyncio.run(run_modes(runtime, modes, fake, responder, home, env, args, pairs))
            ok &= report(pairs, floor)
            if args.profile or not ok:
                profile_batch(inproc_pair(runtime, responder)[1])
        finally:
            runtime.close()
    return 0 if ok else 1


async def run_modes(
    runtime: Runtime,
    modes: Sequence[str],
    fake: FakeOpenAI,
    responder: PacedResponder,
    home: Path,
    env: dict[str, str],
    args: argparse.Namespace,
    pairs: list[Pair],
) -> bool:
    if "direct" in modes:
        pairs.append(Pair("direct"))
        await measure(pairs[-1], *direct_pair(fake, responder), args.repeats)
    if "inproc" in modes:
        pairs.append(Pair("inproc"))
        await measure(pairs[-1], *inproc_pair(runtime, responder), args.repeats)
    if "sse" in modes:
        async with AsyncExitStack() as stack:
            cases = [await sse_case("sse", env, home, responder, stack)]
            if args.before_src is not None:
                # A home of its own: the two trees' migrations may differ.
                before_home = home / "before"
                before_home.mkdir()
                before_env = env | {
                    "PYTHONPATH": str(args.before_src.resolve()),
                    "SOCIALGEN_HOME": str(before_home),
                }
                cases.append(await sse_case(BEFORE_MODE, before_env, before_home, responder, stack))
            pairs.extend(pair for pair, _single, _batch in cases)
            await measure_beside(cases, args.repeats)
    return True


async def sse_case(
    mode: str, env: dict[str, str], home: Path, responder: PacedResponder, stack: AsyncExitStack
) -> tuple[Pair, Timed, Timed]:
    """`socialgen serve` on `env` (its own key), kept until `stack` closes."""
    api_key, workspace = create_key(env)
    server = stack.enter_context(serve(env, home / f"serve-{mode}.log"))
    client = await stack.enter_async_context(
        httpx.AsyncClient(headers={"x-api-key": api_key}, timeout=httpx.Timeout(60.0))
    )
    return (Pair(mode), *sse_pair(client, server.url, workspace, responder))


if __name__ == "__main__":
    sys.exit(main())
