"""Untrusted slide HTML renders in a worker process with a time and memory limit.

WeasyPrint has no time limit of its own, and a few hundred kilobytes of HTML (a
table of 20,000 rows, say) can keep it busy for most of a minute. generate-pdf
takes HTML from any authenticated caller, so it renders in a child process that
is killed when it runs over, or when the request that wanted it is cancelled (the
client left): a render nobody waits for must not hold a core. The next render in
that slot gets a fresh process. Workers stay warm between renders otherwise
(starting one costs about a second: WeasyPrint's import).

`render.pool` decides who renders when; this module runs one render in one slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from socialgen.kit.errors import BadRequest

logger = logging.getLogger("socialgen.render")

DEFAULT_TIMEOUT_SECONDS = 30.0
MEMORY_LIMIT_BYTES = 2 * 1024**3  # address space of a worker
PROCESS_NAME = "socialgen-pdf"  # what ps and top show for a worker (15 characters at most)


class RenderTooSlow(BadRequest):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"The slides took longer than {seconds:g} s to render; simplify their HTML "
            "(fewer elements, smaller tables)",
            status_code=422,
        )


class _Worker:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child,), name=PROCESS_NAME, daemon=True
        )
        self.process.start()  # a fork and exec: milliseconds; the import happens in the child
        child.close()

    async def exchange(self, job: tuple[list[str], int, int]) -> tuple[str, object]:
        """Send a job and await its answer without holding the event loop. The pipe
        calls run in threads (a 16 MB job blocks until a starting worker reads it);
        waiting for the answer is a reader on the event loop, so it costs no thread.
        Killing the worker ends both thread calls at once (EPIPE / EOF)."""
        await asyncio.to_thread(self.connection.send, job)
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        descriptor = self.connection.fileno()
        loop.add_reader(descriptor, _set_once, ready)
        try:
            await ready
        finally:
            loop.remove_reader(descriptor)
            # uvloop (uvicorn's loop) leaves a watched descriptor non-blocking: the
            # threads' recv of a large answer, and the next job's send, would fail
            # with EAGAIN halfway. The pipe calls below expect a blocking pipe.
            with contextlib.suppress(OSError):  # closed meanwhile: the calls fail anyway
                os.set_blocking(descriptor, True)
        answer: tuple[str, object] = await asyncio.to_thread(self.connection.recv)
        return answer

    def kill(self) -> None:
        """SIGKILL now; reaped in the background (waitpid must not hold the event loop).
        The pipe closes when the last reference to this worker goes: a thread still in
        send or recv on it fails with EPIPE or EOF, never on a reused descriptor."""
        if self.process.pid is None:
            return
        with contextlib.suppress(OSError):
            self.process.kill()
        threading.Thread(target=self.process.join, name="socialgen-pdf-reaper", daemon=True).start()


def _set_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class WorkerSlot:
    """One render at a time in one worker process, started on first use. A worker
    killed mid-render is replaced at once, so the replacement imports WeasyPrint
    before the next render arrives. Only the pool hands a slot to a render."""

    def __init__(self) -> None:
        self._worker: _Worker | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        worker = self._worker
        return worker.process.pid if worker is not None else None

    async def render(self, pages: list[str], width: int, height: int, timeout: float) -> bytes:
        """`render.pdf.html_to_pdf` in the worker; 422 when it takes too long, runs
        out of memory or crashes. Cancelled (the client left): the worker is killed."""
        if self._worker is None or not self._worker.process.is_alive():
            self._worker = _Worker()
        worker = self._worker
        try:
            async with asyncio.timeout(timeout):
                kind, value = await worker.exchange((pages, width, height))
        except TimeoutError:
            self._replace()
            raise RenderTooSlow(timeout) from None
        except (EOFError, OSError) as error:  # the worker died (e.g. out of memory)
            self._replace()
            raise BadRequest(
                f"The slides could not be rendered: {str(error) or 'the renderer stopped'}",
                status_code=422,
            ) from None
        except BaseException:  # cancelled: nobody wants this render any more
            self._replace()
            raise
        if kind == "pdf":
            assert isinstance(value, bytes)
            return value
        if kind == "refused":
            raise BadRequest(str(value))
        raise BadRequest(f"The slides could not be rendered: {value}", status_code=422)

    def close(self) -> None:
        """Kill the worker for good (the pool is going away)."""
        self._closed = True
        self._kill()

    def _replace(self) -> None:
        self._kill()
        if not self._closed:
            self._worker = _Worker()  # milliseconds here; its import runs in the child

    def _kill(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            logger.info("killing PDF worker %s", worker.process.pid)
            worker.kill()


def _serve(connection: Connection) -> None:
    """The worker's loop: render each job, answer ("pdf", bytes) or an error."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write(PROCESS_NAME)  # Linux: `ps -C socialgen-pdf` finds the workers
    from socialgen.render.pdf import html_to_pdf

    # Fonts and fontconfig load on the first render: do it now, while nobody waits
    # (a worker replaced after a kill is ready before the next render arrives).
    with contextlib.suppress(Exception):
        html_to_pdf(["<p>warm</p>"], 16, 16)
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
        except RecursionError:  # deeply nested tables or lists
            answer = ("failed", "their HTML is nested too deeply")
        except Exception:
            # WeasyPrint's own failures name Python internals a user cannot act on.
            logger.exception("a slide render failed")
            answer = ("failed", "the renderer could not lay them out")
        connection.send(answer)
