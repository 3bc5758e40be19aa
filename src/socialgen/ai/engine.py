"""Which library runs llama.cpp in this process, for the embedded model and pulled GGUFs.

Two engines run the same GGUF files from the same request (docs/models.md compares them):

- "xllamacpp", the default install: llama.cpp's own server, run in-process from one
  prebuilt abi3 wheel (nothing compiles on install);
- "llama-cpp", the `llama-cpp` extra: llama-cpp-python, which compiles llama.cpp when
  it is installed.

The `engine` setting (SOCIALGEN_ENGINE) names one. Unset, llama-cpp-python runs when it
is importable (whoever installed the extra asked for it), else xllamacpp. Choosing
never imports either library: `socialgen --version` names the engine at no cost.
"""

from __future__ import annotations

import importlib.util
from importlib import metadata

from socialgen.ai.engine_contract import Engine
from socialgen.kit.errors import BadRequest

XLLAMACPP = "xllamacpp"
LLAMA_CPP = "llama-cpp"
# engine -> (the module it imports, the distribution that ships it)
_PACKAGES = {XLLAMACPP: ("xllamacpp", "xllamacpp"), LLAMA_CPP: ("llama_cpp", "llama_cpp_python")}
_INSTALL = {
    XLLAMACPP: "pip install xllamacpp",
    LLAMA_CPP: "pip install 'socialgen[llama-cpp]' (it compiles llama.cpp: a C++ compiler, CMake)",
}


def engine_name(chosen: str | None) -> str:
    """The engine this process uses: `chosen` (the `engine` setting), else the first
    one installed."""
    if chosen in _PACKAGES:
        return str(chosen)
    return LLAMA_CPP if _installed(LLAMA_CPP) else XLLAMACPP


def engine_version(name: str) -> str | None:
    """The installed version of `name`'s library (from its metadata; nothing imported)."""
    try:
        return metadata.version(_PACKAGES[name][1])
    except metadata.PackageNotFoundError:
        return None


def describe_engine(chosen: str | None) -> str:
    """ "xllamacpp 2026.10.11549", or "xllamacpp (not installed)"."""
    name = engine_name(chosen)
    return f"{name} {engine_version(name) or '(not installed)'}"


def current_engine(chosen: str | None) -> Engine:
    """A new engine object of the chosen kind (it keeps what it loads: its owner, a
    LlamaCppModel, keeps it); BadRequest naming the install step when it is absent."""
    name = engine_name(chosen)
    if not _installed(name):
        raise BadRequest(f"The {name} engine is not installed: {_INSTALL[name]}")
    if name == LLAMA_CPP:
        from socialgen.ai.engine_llama_cpp import LlamaCppEngine

        return LlamaCppEngine()
    from socialgen.ai.engine_xllamacpp import XLlamaCppEngine

    return XLlamaCppEngine()


def _installed(name: str) -> bool:
    return importlib.util.find_spec(_PACKAGES[name][0]) is not None
