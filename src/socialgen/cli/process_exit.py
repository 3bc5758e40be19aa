"""Ending a CLI process as soon as its command is done.

After the last line is printed, the interpreter's own teardown (freeing every module
and object of pydantic, SQLAlchemy and the rest) took 1-2 s on a busy 2-core machine:
a script waiting on `socialgen post` waited that long for nothing. So once a command
has finished, the exit handlers run (logging, multiprocessing, the embedded model's
unload: everything `atexit` holds), the standard streams are flushed, and the
process ends there (os._exit) with the command's exit code.

Only when nothing else is running: a live non-daemon thread (a thread pool with
work in flight) gets the ordinary exit, which waits for it. Nothing is lost by
skipping the rest: every store write is committed before its command returns, and
SQLite replays a write-ahead log the next process finds.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def exit_code(code: object) -> int:
    """SystemExit's code as a process's: None is 0, a message is 1 (printed, as
    Python prints it)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def end_now(code: object) -> None:
    """End the process with SystemExit's `code` without the interpreter's teardown;
    returns (for the ordinary exit) when another thread still runs."""
    main = threading.main_thread()
    if any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate()):
        return
    status = exit_code(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left (`| head`), a closed stream
            status = status or 120  # what Python's own exit reports then
    os._exit(status)
