#!/usr/bin/env python3
"""Content calendar: does a 30-day calendar cost about 30 / concurrency single posts?

Part 1, the fake OpenAI-compatible provider (tests/fakes/openai_server.py, on 127.0.0.1,
in this process): every post is written at a fixed per-token latency, --chunks chunks
of --chunk-chars characters, --token-delay seconds apart (default 100 chunks, 10 ms:
about 1 s per post); JSON side requests (the calendar's theme plan, the refinement
questions of a single post) are answered at once. On a temporary SOCIALGEN_HOME, with
one Runtime's text model (as `serve` keeps one), it times, --repeats times each, interleaved:

  T1   one post through the same pipeline: generation.plan.prepare_post +
       generation.single.run_generate_post, to its last event;
  T30  a 30-day calendar: content_calendar.plan.prepare_calendar (a prompt) +
       content_calendar.service.run_calendar, to calendar_complete;
  T7   a 7-day calendar, the same way.

Each calendar runs with the batch_concurrency setting (SOCIALGEN_BATCH_CONCURRENCY) = C
for every C of --concurrency (default 5 and 10), in the settings of the caller the plan
is handed (settings are read once per Runtime: a changed environment is not seen). The
calendar writes at most C days at once, so the target is T30 / (30 / C x T1) <= 1.3
(medians). A 7-day calendar needs ceil(7 / C) rounds, so its figure is shown against
both 7 / C and ceil(7 / C) single posts.

Part 2, the embedded model (SmolLM2-135M through llama.cpp, SOCIALGEN_MODEL unset;
--skip-embedded to leave it out): one 7-day calendar with SOCIALGEN_MAX_TOKENS =
--max-tokens (default 160): total time (the process's first embedded call, so the model
load is included), time to the theme plan and to the first completed day, each day's
time, generated / failed, and the themes.

The third figure of the issue's speed requirement, PDF text of a 10 MB, 2,000-page
PDF ready within 5 s, is measured by bench/pdf_text.py.

The home, the fake provider, the machine line and the table come from the bench harness
(bench/harness/), which also puts the repository on sys.path (so `tests.fakes` imports
without PYTHONPATH=.). Run from the repository root:

    .venv/bin/python bench/content_calendar.py
    .venv/bin/python bench/content_calendar.py --repeats 5 --concurrency 5,10,30 --skip-embedded
    .venv/bin/python bench/content_calendar.py --max-tokens 250
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from harness import Samples, Table, bench_env, bench_home, machine_line
from harness.fake import (
    POST_PREFIXES,
    FakeOpenAI,
    PacedResponder,
    add_pace_options,
    litellm_stream,
    pace_line,
    paced_responder,
)
from socialgen.app.runtime import Runtime

if TYPE_CHECKING:
    from socialgen.ai.model import TextModel
    from socialgen.app.caller import Caller

TOPIC = "why small teams ship weekly"
RATIO_TARGET = 1.3
LONG, SHORT = 30, 7
now = time.monotonic


@dataclass
class Day:
    theme: str = ""
    status: str = ""
    started: float | None = None  # "generating", relative to the start
    finished: float | None = None  # "completed" or "failed", relative
    chars: int = 0
    message: str = ""


@dataclass
class CalendarRun:
    length: int
    concurrency: int
    elapsed: float = 0.0
    planned: float | None = None  # the first "generating": themes are planned
    arrivals: list[float] = field(default_factory=list)  # post requests at the fake
    days: dict[int, Day] = field(default_factory=dict)
    generated: int = 0
    failed: int = 0
    error: str | None = None

    @property
    def completed(self) -> list[float]:
        return sorted(
            day.finished
            for day in self.days.values()
            if day.status == "completed" and day.finished is not None
        )

    @property
    def first_completed(self) -> float | None:
        done = self.completed
        return done[0] if done else None


@dataclass
class Series:
    label: str
    length: int
    concurrency: int
    runs: list[CalendarRun] = field(default_factory=list)

    @property
    def median(self) -> float:
        return Samples([run.elapsed for run in self.runs]).median

    def median_run(self) -> CalendarRun:
        return sorted(self.runs, key=lambda run: run.elapsed)[len(self.runs) // 2]


# --------------------------------------------------------------------------- runs


def open_caller(runtime: Runtime) -> Caller:
    from socialgen.app.caller import Caller
    from socialgen.files.backends import files_of
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    engine = runtime.open_store()
    with read_session(engine) as session:
        workspace = default_workspace(session)
        if workspace is None:
            raise SystemExit("the temporary store has no default workspace")
        return Caller(
            engine=engine,
            workspace_id=workspace.id,
            user_id=None,
            settings=runtime.settings,
            files=files_of(runtime),
        )


async def single_post(caller: Caller, model: TextModel) -> float:
    """Seconds for prepare_post + run_generate_post, to the end of the stream."""
    from socialgen.generation.plan import prepare_post
    from socialgen.generation.schemas import GeneratePostRequest
    from socialgen.generation.single import run_generate_post

    started = now()
    plan = prepare_post(caller, GeneratePostRequest(userInput=TOPIC))
    names = [item.name async for item in run_generate_post(plan, model)]
    elapsed = now() - started
    if "post_ids" not in names:
        raise SystemExit(f"generate-post did not finish: {names[-3:]}")
    return elapsed


async def calendar(
    caller: Caller,
    model: TextModel,
    length: int,
    concurrency: int | None,
    responder: PacedResponder | None,
) -> CalendarRun:
    """prepare_calendar + run_calendar to calendar_complete, every event timed."""
    from socialgen.ai.settings import ai_settings
    from socialgen.content_calendar.plan import prepare_calendar
    from socialgen.content_calendar.schemas import CalendarRequest
    from socialgen.content_calendar.service import run_calendar

    # None: unset, the default. The plan takes it from its caller's settings.
    settings = caller.settings.model_copy(update={"batch_concurrency": concurrency})
    caller = replace(caller, settings=settings)
    run = CalendarRun(length, ai_settings(settings).batch_concurrency)
    mark = responder.count() if responder is not None else 0
    started = now()
    plan = prepare_calendar(caller, CalendarRequest(calendar_length=length, prompt=TOPIC))
    async for item in run_calendar(plan, model):
        at = now() - started
        data = item.data
        if item.name == "calendar_progress":
            day = run.days.setdefault(int(data["current"]), Day())
            status = str(data["status"])
            if status == "generating":
                if run.planned is None:
                    run.planned = at
                day.started = at
                day.theme = str(data["message"]).split(": ", 1)[-1]
            elif status in ("completed", "failed"):
                day.finished = at
                day.message = str(data["message"])
            if status != "saving":
                day.status = status
        elif item.name == "calendar_complete":
            run.generated = int(data["summary"]["generated"])
            run.failed = int(data["summary"]["failed"])
            for post in data["posts"]:
                run.days.setdefault(int(post["index"]), Day()).chars = len(post["content"])
        elif item.name == "error":
            run.error = str(data.get("message"))
    run.elapsed = now() - started
    if responder is not None:
        run.arrivals = [stamp - started for stamp in responder.since(mark)]
    return run


def checked(run: CalendarRun) -> CalendarRun:
    if run.error or run.failed or run.generated != run.length:
        raise SystemExit(
            f"{run.length}-day calendar (C={run.concurrency}) did not complete: "
            f"{run.generated} generated, {run.failed} failed, error {run.error!r}"
        )
    return run


# --------------------------------------------------------------------------- part 1


@dataclass
class FakeResults:
    singles: list[float] = field(default_factory=list)  # T1 runs
    series: list[Series] = field(default_factory=list)
    direct_one: list[float] = field(default_factory=list)  # litellm alone, one stream
    direct_many: dict[int, list[float]] = field(default_factory=dict)  # C streams at once


async def direct_streams(base_url: str, count: int) -> float:
    """Seconds for `count` post streams at once through litellm alone (no socialgen)."""
    messages = [{"role": "user", "content": f"{POST_PREFIXES[0]}: {TOPIC}"}]

    async def stream() -> None:
        async for _part in litellm_stream(base_url, messages):
            pass

    started = now()
    await asyncio.gather(*(stream() for _ in range(count)))
    return now() - started


async def fake_part(
    responder: PacedResponder, base_url: str, concurrencies: Sequence[int], repeats: int
) -> FakeResults:
    results = FakeResults()
    # One Runtime, as `serve` keeps one per process: one engine, one text model.
    runtime = Runtime()
    try:
        await fake_runs(runtime, responder, base_url, concurrencies, repeats, results)
    finally:
        runtime.close()
    return results


async def fake_runs(
    runtime: Runtime,
    responder: PacedResponder,
    base_url: str,
    concurrencies: Sequence[int],
    repeats: int,
    results: FakeResults,
) -> None:
    caller, model = open_caller(runtime), runtime.text_model()
    for concurrency in concurrencies:
        results.series.append(Series(f"{LONG}-day", LONG, concurrency))
        results.series.append(Series(f"{SHORT}-day", SHORT, concurrency))
        results.direct_many[concurrency] = []
    # warm-up: litellm import and first-use work, the first store writes
    await single_post(caller, model)
    checked(await calendar(caller, model, SHORT, concurrencies[0], responder))
    await direct_streams(base_url, 1)
    for _ in range(repeats):
        for item in results.series:
            results.singles.append(await single_post(caller, model))
            run = await calendar(caller, model, item.length, item.concurrency, responder)
            item.runs.append(checked(run))
        results.direct_one.append(await direct_streams(base_url, 1))
        for concurrency in concurrencies:
            results.direct_many[concurrency].append(await direct_streams(base_url, concurrency))


def seconds(values: Sequence[float]) -> str:
    return Samples(values).spread(fmt="{:.2f}")


def report_fake(results: FakeResults, floor: float) -> bool:
    singles, series = results.singles, results.series
    t1 = Samples(singles).median
    print(
        f"\nsingle post (prepare_post + run_generate_post): median T1 = {t1:.3f} s "
        f"over {len(singles)} runs {seconds(singles)}"
    )
    print(f"(the fake's pacing alone: {floor:.2f} s per post)")
    print(f"\ntarget: ratio to days/C x T1 <= {RATIO_TARGET}")
    table = Table(
        "calendar", "C", "median", "days/C x T1", "ratio", "rounds x T1", "ratio", "", notes=True
    )
    ok = True
    for item in series:
        ideal = item.length / item.concurrency * t1
        rounds = math.ceil(item.length / item.concurrency) * t1
        ratio = item.median / ideal
        verdict = ""
        if item.length == LONG:
            ok &= ratio <= RATIO_TARGET
            verdict = "OK" if ratio <= RATIO_TARGET else "MISSED"
        table.add(
            item.label,
            item.concurrency,
            f"{item.median:.3f} s",
            f"{ideal:.3f} s",
            f"{ratio:.3f}",
            f"{rounds:.3f} s",
            f"{item.median / rounds:.3f}",
            verdict,
        )
    table.print()
    one = Samples(results.direct_one).median
    print(
        f"\nbaseline, litellm alone against the same fake (no socialgen): one stream "
        f"{one:.3f} s {seconds(results.direct_one)}"
    )
    for concurrency, runs in results.direct_many.items():
        many = Samples(runs).median
        print(
            f"  {concurrency:3d} streams at once {many:.3f} s = {many / one:.3f} x one "
            f"{seconds(runs)}"
        )
    print("\nper run (seconds):")
    for item in series:
        print(f"  {item.label:8} C={item.concurrency:<3} {seconds([r.elapsed for r in item.runs])}")
    print("\nmedian runs, seconds from prepare_calendar:")
    for item in series:
        run = item.median_run()
        planned = f"{run.planned:.3f}" if run.planned is not None else "-"
        first = run.first_completed
        print(
            f"  {item.label} C={item.concurrency}: themes planned at {planned}, "
            f"first day completed at {first:.3f}, calendar_complete at {run.elapsed:.3f}"
            if first is not None
            else f"  {item.label} C={item.concurrency}: no day completed"
        )
        print(f"    post requests reached the fake {seconds(sorted(run.arrivals))}")
        print(f"    days completed                 {seconds(run.completed)}")
    return ok


# --------------------------------------------------------------------------- part 2


async def embedded_part(max_tokens: int) -> None:
    from socialgen.ai.local import embedded_model_path
    from socialgen.kit.errors import SocialgenError

    for name in ("SOCIALGEN_MODEL", "SOCIALGEN_API_BASE", "OPENAI_API_KEY"):
        os.environ.pop(name, None)
    os.environ["SOCIALGEN_MAX_TOKENS"] = str(max_tokens)
    print(f"\nembedded model, {SHORT}-day calendar, SOCIALGEN_MAX_TOKENS={max_tokens}:")
    try:
        path = embedded_model_path()
    except SocialgenError as error:
        print(f"  skipped: {error.message}")
        return
    runtime = Runtime()  # the settings without the fake's model
    try:
        model = runtime.text_model()
        print(f"  model {model.name} ({path.stat().st_size / 1e6:.0f} MB), one run, cold")
        run = await calendar(open_caller(runtime), model, SHORT, None, None)
    finally:
        runtime.close()
    report_embedded(run)


def report_embedded(run: CalendarRun) -> None:
    planned = f"{run.planned:.2f} s" if run.planned is not None else "-"
    first = f"{run.first_completed:.2f} s" if run.first_completed is not None else "-"
    print(
        f"  total {run.elapsed:.2f} s (model load included); themes planned at {planned}; "
        f"first calendar_progress completed at {first}"
    )
    print(
        f"  {run.generated} generated, {run.failed} failed, C={run.concurrency} "
        f"(llama.cpp runs one call at a time)" + (f"; error: {run.error}" if run.error else "")
    )
    done = run.completed
    if done:
        start = run.planned if run.planned is not None else 0.0
        print(
            f"  per day: {(done[-1] - start) / len(done):.2f} s on average from the plan to the "
            f"last completed day"
        )
    print(f"\n  {'day':>3} {'status':9} {'started':>8} {'done':>8} {'gap':>7} {'chars':>6}  theme")
    previous = run.planned if run.planned is not None else 0.0
    for number in sorted(run.days):
        day = run.days[number]
        started = f"{day.started:7.2f}s" if day.started is not None else "       -"
        done_at = f"{day.finished:7.2f}s" if day.finished is not None else "       -"
        gap = "      -"
        if day.finished is not None:
            gap = f"{day.finished - previous:6.2f}s"
            previous = max(previous, day.finished)
        print(f"  {number:3d} {day.status:9} {started} {done_at} {gap} {day.chars:6d}  {day.theme}")
        if day.status == "failed":
            print(f"      {day.message}")
    print(
        "  (started: the day got a concurrency slot; the model still serves one call at a "
        "time, so 'gap' - since the previous completion - is the day's own time)"
    )


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each (>= 3)")
    add_pace_options(parser, chunks=100)
    parser.add_argument(
        "--concurrency", default="5,10", help="comma-separated SOCIALGEN_BATCH_CONCURRENCY values"
    )
    parser.add_argument(
        "--max-tokens", type=int, default=160, help="SOCIALGEN_MAX_TOKENS for the embedded run"
    )
    embedded = parser.add_mutually_exclusive_group()
    embedded.add_argument(
        "--embedded",
        dest="embedded",
        action="store_true",
        default=True,
        help="time a 7-day calendar with the embedded model (the default)",
    )
    embedded.add_argument("--skip-embedded", dest="embedded", action="store_false")
    args = parser.parse_args()
    if args.repeats < 3:
        parser.error("--repeats must be at least 3")
    try:
        concurrencies = [int(part) for part in args.concurrency.split(",") if part.strip()]
    except ValueError:
        parser.error("--concurrency takes whole numbers, e.g. 5,10")
    if not concurrencies or min(concurrencies) < 1:
        parser.error("--concurrency takes whole numbers of 1 or more")

    print(machine_line())
    print(f"{pace_line(args)}; {args.repeats} runs each after a warm-up, interleaved, medians")
    print("(PDF text of a 10 MB, 2,000-page PDF within 5 s: see bench/pdf_text.py)")
    responder = paced_responder(args)
    with bench_home("socialgen-bench-calendar-") as home:
        with FakeOpenAI(responder) as fake:
            # In process, on the temporary home and the fake only.
            os.environ.clear()
            os.environ.update(bench_env(home, **fake.env()))
            results = asyncio.run(fake_part(responder, fake.base_url, concurrencies, args.repeats))
        ok = report_fake(results, (args.chunks - 1) * args.token_delay)
        if args.embedded:
            asyncio.run(embedded_part(args.max_tokens))
        print(f"\nat the end: {machine_line()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
