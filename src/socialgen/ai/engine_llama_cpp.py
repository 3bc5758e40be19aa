"""The llama-cpp-python engine (the `llama-cpp` extra): a Llama object per GGUF, kept
by the engine object (a LlamaCppModel's, for the model's life), asked through its
create_chat_completion."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from socialgen.ai.engine_contract import Emit, Generation
from socialgen.ai.model import Output

CONTEXT_TOKENS = 4096


class LlamaCppEngine:
    """The models this engine object loaded, one per GGUF."""

    def __init__(self) -> None:
        self._loaded: dict[Path, Any] = {}

    def generate(self, path: Path, request: Generation, emit: Emit) -> None:
        _generate(self._load(path), request, emit)

    def _load(self, path: Path) -> Any:
        llama = self._loaded.get(path)
        if llama is None:
            llama = self._loaded[path] = _load(path)
        return llama

    def unload_all(self) -> None:
        """Free models before interpreter teardown: llama.cpp's own finaliser runs too
        late then, when the functions it calls are already gone, and prints a traceback."""
        for llama in self._loaded.values():
            llama.close()
        self._loaded.clear()


def _generate(llama: Any, request: Generation, emit: Emit) -> None:
    options: dict[str, Any] = {
        "stream": True,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "repeat_penalty": request.repeat_penalty,
    }
    options.update(_format_options(request.output))
    for part in llama.create_chat_completion(messages=request.messages, **options):
        text = part["choices"][0]["delta"].get("content")
        if text and emit(text):
            break


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
    # A write, not a read: OpenMP (in the C library) reads it when it loads; idle
    # threads sleep instead of spinning (see engine_xllamacpp.py).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from llama_cpp import Llama

    return Llama(
        model_path=str(path),
        n_ctx=CONTEXT_TOKENS,
        n_threads=max(1, min(4, os.cpu_count() or 1)),
        verbose=False,
    )
