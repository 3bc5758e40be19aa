"""What a bench prints: the machine it ran on, aligned tables, an optional JSON dump."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def machine_line() -> str:
    """Python, CPUs and load: the figures only mean something next to these."""
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}"


def ms(seconds: float, digits: int = 1) -> str:
    return f"{seconds * 1000:.{digits}f} ms"


class Table:
    """Plain-text rows under a header; the first column left-aligned, the rest right,
    each as wide as its widest cell. Cells are strings the bench formats itself, so a
    figure prints with the precision that bench has always used."""

    def __init__(self, *headers: str, indent: str = "", notes: bool = False) -> None:
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.indent = indent
        self.notes = notes  # the last column is free text: left-aligned, not padded

    def add(self, *cells: object) -> None:
        self.rows.append([str(cell) for cell in cells])

    def render(self) -> str:
        count = len(self.headers)
        widths = [
            max(len(row[i]) for row in [self.headers, *self.rows] if i < len(row))
            for i in range(count)
        ]
        lines = []
        for row in [self.headers, *self.rows]:
            cells = []
            for i, cell in enumerate(row):
                last_note = self.notes and i == count - 1
                if last_note:
                    cells.append(cell)
                elif i == 0:
                    cells.append(cell.ljust(widths[i]))
                else:
                    cells.append(cell.rjust(widths[i]))
            lines.append((self.indent + "  ".join(cells)).rstrip())
        return "\n".join(lines)

    def print(self) -> None:
        print(self.render())


class Report:
    """Figures by name for `--json PATH` ("-" for stdout), written when the bench ends."""

    def __init__(self, bench: str) -> None:
        self.figures: dict[str, Any] = {"bench": bench}

    @staticmethod
    def add_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")

    def add(self, name: str, value: Any) -> None:
        self.figures[name] = value

    def write(self, path: str | None) -> None:
        if not path:
            return
        text = json.dumps(self.figures, indent=2, default=str)
        if path == "-":
            print(text)
        else:
            Path(path).write_text(text + "\n")
