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

A reader that left (`socialgen insights | head -1`) ends the process as it ends any
Unix tool, `git log | head -1` or `gh`'s: quietly, by SIGPIPE, which a shell reports
as exit 141 (128 + 13; what `set -o pipefail` sees). Python ignores SIGPIPE so that
its sockets get an error instead of a kill (the server, the network clients need
that): the command sees a BrokenPipeError, the root group turns it into PIPE_CLOSED,
and only here, with the command done, does the signal end the process.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading

PIPE_CLOSED = 141  # 128 + SIGPIPE: the status a shell gives a tool the pipe's reader left


def closed_pipe(error: BaseException) -> bool:
    """Whether `error` (or one it groups: a task group's) says stdout's reader left."""
    if isinstance(error, BrokenPipeError):
        return True
    if isinstance(error, BaseExceptionGroup):
        return any(closed_pipe(inner) for inner in error.exceptions)
    return False


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
        if code == PIPE_CLOSED:
            quiet_stdout()  # the ordinary exit flushes stdout: not into the closed pipe
        return
    status = exit_code(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader left before the last rows went out
            status = status or PIPE_CLOSED
        except (OSError, ValueError):  # a closed stream
            status = status or 120  # what Python's own exit reports then
    if status == PIPE_CLOSED:
        _die_of_sigpipe()
    os._exit(status)


def _die_of_sigpipe() -> None:
    """End as a tool killed by SIGPIPE ends (the default action: no core, no message);
    where there is no SIGPIPE (Windows), os._exit gives the same number."""
    sigpipe = getattr(signal, "SIGPIPE", None)
    if sigpipe is not None:
        signal.signal(sigpipe, signal.SIG_DFL)
        os.kill(os.getpid(), sigpipe)


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's own exit (another thread kept
    the process) finds nothing to flush into the pipe nobody reads."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file behind stdout: nothing will be flushed there
        pass
