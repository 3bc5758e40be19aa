#!/usr/bin/env python3
"""What files built to break `socialgen posts import` cost: time, peak RSS, the answer.

Each file is imported into a fresh home by the real console script, in a launcher of
its own whose children's ru_maxrss is that import's peak alone:

* a 12 MB CSV whose header has 1.45 million columns (the probe's 16 MB one took the
  process to 475 MB);
* JSON nested 100,000 deep (was "Unexpected error");
* an X analytics export whose last row has an id of 5,000 digits (was "Unexpected
  error", with no row).

A valid 100 MB X archive is `bench/posts_import.py --case tweets.js --posts 122000`.

    .venv/bin/python bench/import_hostile.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import bench_env, bench_home, machine_line, socialgen_command

# isort: on

PEAK_OF = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], "
    "capture_output=True, text=True); sys.stdout.write(done.stderr.strip()[:120] + '\\n'); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)
X_HEADER = "Post id,Date,Post text,Post Link,Impressions,Likes,Engagements,Bookmarks,Shares"


def files(folder: Path) -> dict[str, Path]:
    wide = folder / "wide.csv"
    wide.write_text("content," + ",".join(f"c{n}" for n in range(1_450_000)) + "\nhello\n")
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    long_id = folder / "account_analytics_content.csv"
    row = '{},"Wed, Oct 10, 2018",text,https://x.com/me/status/1,1,1,0,0,0'
    good = row.format("1050118621198921728")
    long_id.write_text("\n".join([X_HEADER, good, row.format("9" * 5000)]) + "\n")
    return {"1.45 M columns": wide, "nested 100,000": deep, "5,000-digit id": long_id}


def main() -> None:
    print(machine_line())
    with tempfile.TemporaryDirectory() as folder:
        for name, path in files(Path(folder)).items():
            with bench_home("import-hostile-") as home:
                env = bench_env(home)
                command = [*socialgen_command(), "posts", "import", str(path)]
                started = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-c", PEAK_OF, *command],
                    env=env,
                    capture_output=True,
                    text=True,
                )
                took = time.perf_counter() - started
                said, peak = done.stdout.strip().rsplit("\n", 1)
                size = path.stat().st_size / 1e6
                print(f"{name:<16} {size:6.1f} MB  {took:5.1f} s  peak RSS "
                      f"{int(peak) // 1024:4d} MB  {said}")  # fmt: skip


if __name__ == "__main__":
    main()
