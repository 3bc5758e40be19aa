"""A reader that left the pipe (`socialgen insights | head -1`): the real process ends
quietly, as `git log | head -1` does, by SIGPIPE (exit 141 to a shell), never with
"Error: Unexpected error: [Errno 32] Broken pipe" and exit 1.

Made certain rather than raced: stdout is a pipe whose read end is closed before the
process starts, so its first write finds the reader gone (`| head -1` leaves at a
moment of its own choosing).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import Store
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history


@pytest.fixture
def reader_gone() -> Iterator[int]:
    """The write end of a pipe nobody reads any more."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    yield write_end
    os.close(write_end)


def run_into(stdout: int, *command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    return subprocess.run(
        list(command),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )


SOCIALGEN = (sys.executable, "-m", "socialgen")


@pytest.mark.parametrize(
    "args",
    [
        ["insights"],  # the report: many writes, the first one fails
        ["posts", "recent"],  # plain rows, written at the end (the final flush fails)
        ["posts", "recent", "--json"],
        ["-h"],  # printed while the root's context is made
        ["posts", "-h"],
    ],
)
def test_the_process_ends_by_sigpipe_without_a_word(
    store: Store, reader_gone: int, args: list[str]
) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(40, seed=3))
    for number in range(3):
        store.post(f"A recent draft, number {number}")  # `posts recent` lists these

    done = run_into(reader_gone, *SOCIALGEN, *args)

    assert done.returncode == -signal.SIGPIPE, done.stderr
    assert done.stderr == ""


def test_a_shell_sees_141_as_for_any_tool(store: Store, reader_gone: int) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(40, seed=3))
    script = '"$@"; echo "status $?" >&2'

    done = run_into(reader_gone, "bash", "-c", script, "bash", *SOCIALGEN, "insights")

    assert done.stderr == "status 141\n"


def test_a_reader_that_stays_gets_everything(store: Store) -> None:
    """The check above must not swallow ordinary output: the same command read whole."""
    put_history(store.engine, store.workspace_id, synthetic_history(40, seed=3))
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}

    done = subprocess.run(
        [*SOCIALGEN, "insights"], env=env, capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    assert "40 measured published posts" in done.stdout
