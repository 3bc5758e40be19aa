"""The short list of instruct models `socialgen models pull NAME` knows by name:
GGUFs at Q4_K_M that write well on a laptop CPU. Sizes are the hub's files (the
hub's own figure is checked again when pulling); memory is the file plus the
context's key-value cache at 4096 tokens, what llama.cpp holds while writing."""

from __future__ import annotations

from dataclasses import dataclass

GB = 1_000_000_000


@dataclass(frozen=True)
class KnownModel:
    name: str  # what `models pull`, `models default` and `local/NAME` take
    repo: str
    filename: str
    parameters: int
    size_bytes: int
    memory_bytes: int
    licence: str
    note: str


EMBEDDED_NAME = "smollm2-135m"

CATALOGUE: tuple[KnownModel, ...] = (
    KnownModel(
        name="qwen2.5-1.5b",
        repo="Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        filename="qwen2.5-1.5b-instruct-q4_k_m.gguf",
        parameters=1_540_000_000,
        size_bytes=1_117_320_736,
        memory_bytes=int(1.5 * GB),
        licence="Apache-2.0",
        note="the best writer for its size; the first to try",
    ),
    KnownModel(
        name="smollm2-1.7b",
        repo="HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF",
        filename="smollm2-1.7b-instruct-q4_k_m.gguf",
        parameters=1_710_000_000,
        size_bytes=1_060_000_000,
        memory_bytes=int(2.1 * GB),
        licence="Apache-2.0",
        note="the embedded model's big sibling: English, plain, short",
    ),
    KnownModel(
        name="llama3.2-3b",
        repo="bartowski/Llama-3.2-3B-Instruct-GGUF",
        filename="Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        parameters=3_210_000_000,
        size_bytes=2_019_377_600,
        memory_bytes=int(2.7 * GB),
        licence="Llama 3.2 Community License",
        note="the most fluent here; about twice as slow as the 1.5B models",
    ),
    KnownModel(
        name="qwen2.5-0.5b",
        repo="Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        filename="qwen2.5-0.5b-instruct-q4_k_m.gguf",
        parameters=494_000_000,
        size_bytes=491_000_000,
        memory_bytes=int(0.7 * GB),
        licence="Apache-2.0",
        note="for old laptops: fast, plans as a small model does",
    ),
)


def known_model(name: str) -> KnownModel | None:
    wanted = name.strip().lower()
    return next((model for model in CATALOGUE if model.name == wanted), None)


def known_by_file(filename: str) -> KnownModel | None:
    return next((model for model in CATALOGUE if model.filename == filename), None)


def readable_bytes(count: int) -> str:
    """1_117_320_736 -> "1.1 GB" (decimal units, as the hub and disks count)."""
    if count >= GB:
        return f"{count / GB:.1f} GB"
    for unit, scale in (("MB", 1_000_000), ("kB", 1_000)):
        if count >= scale:
            return f"{count / scale:.0f} {unit}"
    return f"{count} B"


def readable_parameters(count: int | None) -> str:
    if count is None:
        return "?"
    if count >= GB:
        return f"{count / GB:.1f}B"
    return f"{count / 1_000_000:.0f}M"
