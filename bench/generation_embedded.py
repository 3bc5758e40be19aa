"""(d) of generation_overhead.py: the embedded model (SmolLM2-135M GGUF, llama.cpp in
this process) direct against `socialgen post --json` with the model load timed in the
child. Run through generation_overhead.py (not with --skip-embedded)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generation_streams import TOPIC, Series, StreamRun, delta_times, post_messages_for
from harness import Samples, Table, bench_env, interleave, run_lines

now = time.monotonic

TIMED_CLI = """
import json, sys, time
import socialgen.ai.engine as engine
loader = engine.current_engine()  # the engine module this process runs
original = loader._load
def timed(path):
    sys.stderr.write(json.dumps({"bench": "load_start", "t": time.monotonic()}) + "\\n")
    model = original(path)
    sys.stderr.write(json.dumps({"bench": "load_end", "t": time.monotonic()}) + "\\n")
    return model
loader._load = timed
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
    env = bench_env(home, SOCIALGEN_MAX_TOKENS=str(max_tokens))
    command = [sys.executable, "-c", TIMED_CLI, "post", TOPIC, "--json"]
    runs = interleave(
        {
            "direct": lambda: direct_llama_once(llama, messages, max_tokens),
            "cli": lambda: cli_llama_once(command, env),
        },
        repeats,
    )
    direct = Series("direct llama-cpp", runs["direct"])
    cli = Series("CLI socialgen post", runs["cli"])

    table = Table("", "tokens", "tokens/s", "x direct", "1st token")
    rows = (
        ("direct llama-cpp (from the call)", direct, lambda run: run.first_token),
        ("CLI socialgen post (from spawn)", cli, lambda run: run.extra["spawn_to_first"]),
        ("CLI socialgen post (from model loaded)", cli, lambda run: run.extra["first_token"]),
    )
    for label, series, first in rows:
        table.add(
            label,
            series.chunks,
            f"{series.rate:.1f}",
            f"{series.rate / direct.rate:.3f}",
            f"{series.samples(first).median * 1000:.0f} ms",
        )
    print()
    table.print()
    rates = direct.samples(lambda run: run.rate), cli.samples(lambda run: run.rate)
    firsts = direct.samples(lambda run: run.first_token)
    loaded = cli.samples(lambda run: run.extra["first_token"])
    print(
        f"  per run: direct {rates[0].spread()} tok/s, {firsts.spread(1000, '{:.0f}')} ms; "
        f"CLI {rates[1].spread()} tok/s, {loaded.spread(1000, '{:.0f}')} ms once loaded"
    )
    print(f"  direct model load, Llama(...) once in this process: {load * 1000:.0f} ms")
    print("  CLI phases (medians; the model load is timed by wrapping socialgen.ai.local._load):")
    phases = Table("", "median", "per run", indent="    ", notes=True)
    for key, label in (
        ("startup", "spawn -> model load starts (imports, store, plan)"),
        ("load", "model load (Llama(...))"),
        ("first_token", "model loaded -> first stdout line (prompt eval, 1st token)"),
        ("spawn_to_first", "spawn -> first stdout line"),
        ("refinement", "last token -> post_ids line (save, refinement questions)"),
        ("teardown", "post_ids line -> process exit"),
        ("total", "total wall time"),
    ):
        values = cli.samples(lambda run, key=key: run.extra[key])
        phases.add(label, f"{values.median * 1000:.0f} ms", values.spread(1000, "{:.0f}"))
    phases.print()
    pairs = list(zip(direct.runs, cli.runs, strict=True))
    gaps = Samples([c.extra["first_token"] - d.first_token for d, c in pairs])
    ratios = Samples([c.rate / d.rate for d, c in pairs])
    print(
        f"  CLI vs direct once the model is loaded, paired runs (each CLI run right after "
        f"a direct one):\n    first token {gaps.median * 1000:+.0f} ms "
        f"{gaps.spread(1000, '{:+.0f}')}, rate {ratios.median:.3f}x {ratios.spread(1, '{:.3f}')}"
    )
    averages = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"  load average now {averages}")
