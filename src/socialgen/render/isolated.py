"""Untrusted slide HTML renders in a worker process with a time and memory limit.

WeasyPrint has no time limit of its own, and a few hundred kilobytes of HTML (a
table of 20,000 rows, say) can keep it busy for most of a minute. generate-pdf
takes HTML from any authenticated caller, so it renders in a child process that
is killed when it runs over; the next request gets a fresh one. Workers stay
warm between requests (starting one costs about a second: WeasyPrint's import).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from socialgen.errors import BadRequest

logger = logging.getLogger("socialgen.render")

DEFAULT_TIMEOUT_SECONDS = 30.0
MEMORY_LIMIT_BYTES = 2 * 1024**3  # address space of a worker
WORKERS = 2  # renders at once per server process; more callers wait their turn


class RenderTooSlow(BadRequest):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"The slides took longer than {seconds:g} s to render; simplify their HTML "
            "(fewer elements, smaller tables)",
            status_code=422,
        )


def render_timeout() -> float:
    try:
        return max(0.1, float(os.environ.get("SOCIALGEN_PDF_TIMEOUT", DEFAULT_TIMEOUT_SECONDS)))
    except ValueError:
        return DEFAULT_TIMEOUT_SECONDS


class _Worker:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child,), name="socialgen-pdf", daemon=True
        )
        self.process.start()
        child.close()

    def stop(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.connection.close()


_idle: queue.LifoQueue[_Worker | None] = queue.LifoQueue()
_start_lock = threading.Lock()
_started = False


def html_to_pdf_isolated(pages: list[str], width: int, height: int) -> bytes:
    """`render.pdf.html_to_pdf` in a worker process; 422 when it takes too long,
    runs out of memory or crashes. Blocking: call it from a thread."""
    global _started
    with _start_lock:
        if not _started:
            for _ in range(WORKERS):
                _idle.put(None)  # a slot: its worker starts on first use
            _started = True
    timeout = render_timeout()
    worker = _idle.get()
    try:
        if worker is None or not worker.process.is_alive():
            worker = _Worker()
        worker.connection.send((pages, width, height))
        if not worker.connection.poll(timeout):
            worker.stop()
            worker = None
            raise RenderTooSlow(timeout)
        kind, value = worker.connection.recv()
    except (EOFError, OSError) as error:  # the worker died (e.g. out of memory)
        if worker is not None:
            worker.stop()
            worker = None
        raise BadRequest(f"The slides could not be rendered: {error}", status_code=422) from None
    finally:
        _idle.put(worker)
    if kind == "pdf":
        assert isinstance(value, bytes)
        return value
    if kind == "refused":
        raise BadRequest(str(value))
    raise BadRequest(f"The slides could not be rendered: {value}", status_code=422)


def _serve(connection: Connection) -> None:
    """The worker's loop: render each job, answer ("pdf", bytes) or an error."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    from socialgen.render.pdf import html_to_pdf

    while True:
        try:
            pages, width, height = connection.recv()
        except (EOFError, OSError):
            return  # the server went away
        try:
            answer: tuple[str, object] = ("pdf", html_to_pdf(pages, width, height))
        except BadRequest as error:
            answer = ("refused", error.message)
        except MemoryError:
            answer = ("failed", "they need more memory than a render may use")
        except Exception as error:
            answer = ("failed", f"{type(error).__name__}: {error}")
        connection.send(answer)
