"""Running the real `socialgen` as a person at a terminal, or as a script in a pipe.

A person's terminal is a real pseudo-terminal on stdin (what the CLI checks before it
asks a question); stdout and stderr stay pipes so a test can read them. The store is
the one the `store` fixture put in the environment.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys


def run_at_terminal(*args: str, answer: str) -> subprocess.CompletedProcess[str]:
    """`socialgen ARGS` with a terminal on stdin, where a person types `answer`."""
    leader, follower = pty.openpty()
    try:
        # Typed ahead: the terminal keeps the line until the command reads it.
        os.write(leader, answer.encode())
        return subprocess.run(
            [sys.executable, "-m", "socialgen", *args],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)


def run_in_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """`socialgen ARGS` as a script runs it: nothing on stdin, stdout read by a program."""
    # Whatever the runner's own environment says about terminals, this is a pipe.
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "socialgen", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# What a person's terminal looks like to the CLI run in-process (typer's CliRunner
# is a pipe): rich's own switches, without colour codes in the text a test reads.
A_TERMINAL = {"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
