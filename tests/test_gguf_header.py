"""A GGUF's parameter count from its header: the metadata's figure, its size label,
or the sum of its tensor shapes; anything else is refused as no GGUF."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from socialgen.ai.gguf_header import NotGguf, parameter_count, parse_size_label
from socialgen.ai.local import embedded_model_path


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def gguf(entries: list[bytes], tensors: list[tuple[str, tuple[int, ...]]]) -> bytes:
    """A GGUF v3 header: metadata entries, then tensor infos (no tensor data)."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(entries))
    infos = b"".join(
        _string(name)
        + struct.pack(f"<I{len(shape)}Q", len(shape), *shape)
        + struct.pack("<IQ", 0, 0)  # the tensor's type and data offset
        for name, shape in tensors
    )
    return head + b"".join(entries) + infos


ARCH = _string("general.architecture") + struct.pack("<I", 8) + _string("llama")
TOKENS = (
    _string("tokenizer.ggml.tokens")
    + struct.pack("<IIQ", 9, 8, 3)
    + b"".join(_string(t) for t in ("<s>", "hi", "</s>"))
)
SCORES = _string("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 3) + b"\0" * 12


def test_the_embedded_models_header_names_its_size() -> None:
    assert parameter_count(embedded_model_path()) == 135_000_000


def test_without_a_figure_the_tensor_shapes_are_summed(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf([ARCH, TOKENS, SCORES], [("a", (4, 5)), ("b", (7,)), ("c", (2, 3, 4))]))

    assert parameter_count(path) == 20 + 7 + 24


def test_the_parameter_count_entry_wins(tmp_path: Path) -> None:
    count = _string("general.parameter_count") + struct.pack("<IQ", 10, 1_234_567)
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf([ARCH, TOKENS, count], [("a", (4, 5))]))

    assert parameter_count(path) == 1_234_567


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04zip", b"GGUF\x03\x00\x00\x00\x01"])
def test_a_file_that_is_no_gguf_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(content)

    with pytest.raises(NotGguf):
        parameter_count(path)


@pytest.mark.parametrize(
    ("label", "count"),
    [("135M", 135_000_000), ("1.5B", 1_500_000_000), ("8x7B", 56_000_000_000), ("big", None)],
)
def test_size_labels(label: str, count: int | None) -> None:
    assert parse_size_label(label) == count
