"""How many parameters a GGUF file holds, read from its header (no model is loaded).

The header names it (`general.parameter_count`, or a `general.size_label` such as
"135M" or "8x7B") in most files; otherwise the tensor shapes that follow the
metadata are summed. Either way only the header is read: milliseconds, not the
seconds llama.cpp takes to load the weights.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import BinaryIO

MAGIC = b"GGUF"
_STRING, _ARRAY = 8, 9
# Byte widths of GGUF's fixed-size value types, by type id.
_WIDTHS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_UNSIGNED = {0: "<B", 2: "<H", 4: "<I", 10: "<Q"}
_SIZE_LABEL = re.compile(r"^(?:(\d+)x)?(\d+(?:\.\d+)?)([KMBT])$", re.IGNORECASE)
_SCALE = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


class NotGguf(ValueError):
    """The file is not a GGUF model (or its header is cut short)."""


def parameter_count(path: Path) -> int:
    """The model's parameter count; NotGguf when the file is no GGUF."""
    try:
        with path.open("rb") as file:
            return _read(file)
    except (struct.error, UnicodeDecodeError, KeyError, MemoryError) as error:
        raise NotGguf(f"{path.name} is not a readable GGUF file") from error


def parse_size_label(label: str) -> int | None:
    """ "135M" -> 135_000_000, "1.5B" -> 1_500_000_000, "8x7B" -> 56e9; None if unreadable."""
    found = _SIZE_LABEL.match(label.strip())
    if not found:
        return None
    experts, number, unit = found.groups()
    return int(float(number) * _SCALE[unit.upper()] * (int(experts) if experts else 1))


def _read(file: BinaryIO) -> int:
    if file.read(4) != MAGIC:
        raise NotGguf("not a GGUF file")
    (version,) = struct.unpack("<I", file.read(4))
    if version < 2:
        raise NotGguf("GGUF version 1 is not supported")
    tensors, entries = struct.unpack("<QQ", file.read(16))
    label: int | None = None
    for _ in range(entries):
        key = _string(file)
        (kind,) = struct.unpack("<I", file.read(4))
        if key == "general.parameter_count" and kind in _UNSIGNED:
            (count,) = struct.unpack(_UNSIGNED[kind], file.read(_WIDTHS[kind]))
            return int(count)
        if key == "general.size_label" and kind == _STRING:
            label = parse_size_label(_string(file))
            continue
        _skip(file, kind)
    if label is not None:
        return label
    return _sum_tensors(file, tensors)


def _string(file: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", file.read(8))
    return file.read(length).decode("utf-8")


def _skip(file: BinaryIO, kind: int) -> None:
    if kind == _STRING:
        (length,) = struct.unpack("<Q", file.read(8))
        file.seek(length, 1)
    elif kind == _ARRAY:
        item_kind, count = struct.unpack("<IQ", file.read(12))
        if item_kind in _WIDTHS:
            file.seek(_WIDTHS[item_kind] * count, 1)
        else:
            for _ in range(count):
                _skip(file, item_kind)
    else:
        file.seek(_WIDTHS[kind], 1)


def _sum_tensors(file: BinaryIO, tensors: int) -> int:
    total = 0
    for _ in range(tensors):
        _string(file)
        (dimensions,) = struct.unpack("<I", file.read(4))
        shape = struct.unpack(f"<{dimensions}Q", file.read(8 * dimensions))
        file.seek(4 + 8, 1)  # the tensor's type and its offset in the data
        elements = 1
        for size in shape:
            elements *= size
        total += elements
    return total
