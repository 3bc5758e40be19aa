"""The bench harness: what every bench script needs besides what it measures.

A bench reads as a page of what it measures and takes the rest from here:

* `timing`  - interleaved runs (a baseline measured in the same run, so machine noise
  hits both alike), repeated runs of a stage, medians, nearest-rank percentiles, ratios;
* `servers` - a temporary SOCIALGEN_HOME and a clean environment (in this process:
  settings for a block), `socialgen serve` on a free port, API keys and bearer
  tokens, a process's RSS and CPU time;
* `fake`    - the fake OpenAI-compatible provider (tests/fakes/openai_server.py) with a
  paced responder (and its options), a stream through litellm alone, and
  llama-cpp-python's own server (tests/llama_server.py);
* `report`  - the machine line, one aligned plain-text table, an optional `--json` dump.

Importing the package puts the repository root on sys.path (so `tests.fakes` imports
without PYTHONPATH=.) and keeps litellm from fetching its cost map from the network.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
# Never fetch litellm's model cost map from the network (socialgen sets the same).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness.report import Report, Table, machine_line, ms  # noqa: E402
from harness.servers import (  # noqa: E402
    Lines,
    Server,
    Status,
    bench_env,
    bench_home,
    cpu_seconds,
    create_key,
    create_token,
    environ,
    free_port,
    proc_status,
    run_lines,
    serve,
    socialgen_command,
    start_server,
    stop_server,
    tree_command,
)
from harness.timing import Samples, interleave, repeat_calls, timed, timed_runs  # noqa: E402

__all__ = [
    "REPO",
    "Lines",
    "Report",
    "Samples",
    "Server",
    "Status",
    "Table",
    "bench_env",
    "bench_home",
    "cpu_seconds",
    "create_key",
    "create_token",
    "environ",
    "free_port",
    "interleave",
    "machine_line",
    "ms",
    "proc_status",
    "repeat_calls",
    "run_lines",
    "serve",
    "socialgen_command",
    "start_server",
    "stop_server",
    "timed",
    "timed_runs",
    "tree_command",
]
