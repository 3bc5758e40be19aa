"""A finished CLI command ends its process at once (socialgen/cli/process_exit.py): the
exit handlers run and the exit code is kept, but the interpreter's teardown, which
took 1-2 s after the last line on a busy machine, is skipped. A live non-daemon
thread gets the ordinary exit, which waits for it. Real processes, `main()` as the
`socialgen` script calls it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# An object freed only by the interpreter's teardown says so on stderr; an exit
# handler says it ran; then the `socialgen` command line runs with the given args.
SCRIPT = """
import atexit, os, sys, threading

class FreedAtTeardown:
    def __del__(self, write=os.write):
        write(2, b"interpreter teardown ran\\n")

kept = FreedAtTeardown()
atexit.register(lambda: print("exit handler ran", flush=True))
if sys.argv[1] == "busy-thread":
    # A thread that runs until end_now has had its look (and returned).
    import socialgen.cli.process_exit as process_exit

    looked = threading.Event()
    threading.Thread(target=looked.wait, args=(60,)).start()
    end_now = process_exit.end_now

    def end_now_then_release(code):
        end_now(code)
        looked.set()

    process_exit.end_now = end_now_then_release
from socialgen.cli.main import main
sys.argv = ["socialgen", *sys.argv[2:]]
main()
"""


def run(tmp_path: Path, mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SOCIALGEN_")}
    env["SOCIALGEN_HOME"] = str(tmp_path / "home")
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--version"], 0), (["no-such-command"], 2), (["config", "get", "no_such_key"], 1)],
    ids=["ok", "usage", "error"],
)
def test_a_finished_command_ends_without_the_teardown_and_keeps_its_code(
    tmp_path: Path, args: list[str], code: int
) -> None:
    done = run(tmp_path, "quiet", *args)
    assert done.returncode == code, done.stderr
    assert "exit handler ran" in done.stdout
    assert "interpreter teardown ran" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_thread_still_running_gets_the_ordinary_exit(tmp_path: Path) -> None:
    done = run(tmp_path, "busy-thread", "--version")
    assert done.returncode == 0, done.stderr
    assert "exit handler ran" in done.stdout
    assert "interpreter teardown ran" in done.stderr
