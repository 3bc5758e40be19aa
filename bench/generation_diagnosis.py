"""Where the CLI's first token goes (generation_overhead.py --profile, or when a target
is missed): a stack sampler in the child, a what-if with litellm warmed early, and a
cProfile of the in-process pipeline. Not run on its own."""

from __future__ import annotations

import asyncio
import cProfile
import io
import json
import os
import pstats
import sys
from collections.abc import Sequence
from pathlib import Path

from generation_streams import TOPIC, StreamRun, cli_once
from harness import Samples, bench_env
from harness.fake import FakeOpenAI, PacedResponder

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
from socialgen.cli.main import main
from socialgen.app.runtime import Runtime
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
    from socialgen.ai.openai_compatible import serves

    if serves(env.get("SOCIALGEN_MODEL", "")):
        print("\n(no litellm what-if: this model goes through the OpenAI-compatible client)")
        return
    warmed = [sys.executable, "-c", WARM_FIRST + RUN_CLI, *args]
    runs = [cli_once(warmed, env, responder) for _ in range(3)]
    print(
        "\nwhat-if: the same CLI with litellm's tiktoken encoding and service logger loaded "
        "right after\nlitellm is imported, before the request (3 runs, medians):"
    )
    for key, label in (
        ("first_token", "post request at the fake -> first chunk"),
        ("startup", "start-up: spawn -> post request at the fake"),
        ("first_line", "spawn -> first stdout line"),
    ):
        values = Samples(
            [run.first_token if key == "first_token" else run.extra[key] for run in runs]
        )
        print(f"  {label:48} {values.median * 1000:8.1f} ms  {values.spread(1000, '{:.0f}')}")
    run, window = sampled_run(WARM_FIRST, args, env, responder)
    print(f"  where the rest goes (one sampled run, first token {run.first_token * 1000:.0f} ms):")
    show_window(window, inclusive=0, innermost=6)


# --------------------------------------------------------------------------- profile


def profile_pipeline(fake: FakeOpenAI, home: Path, max_tokens: int) -> None:
    """cProfile one generate-post through the in-process service (store, plan, stream)."""
    os.environ.update(bench_env(home) | fake.env() | {"SOCIALGEN_MAX_TOKENS": str(max_tokens)})
    from socialgen.ai.registry import text_model
    from socialgen.app.caller import Caller
    from socialgen.app.runtime import Runtime
    from socialgen.files.backends import files_of
    from socialgen.generation.plan import prepare_post
    from socialgen.generation.schemas import GeneratePostRequest
    from socialgen.generation.single import run_generate_post
    from socialgen.http.streaming import guarded
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    runtime = Runtime()
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

    async def once() -> None:
        plan = prepare_post(caller, GeneratePostRequest(userInput=TOPIC))
        async for item in guarded(
            run_generate_post(plan, text_model(runtime.settings, runtime.models_dir))
        ):
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
