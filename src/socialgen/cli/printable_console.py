"""The console every command prints through: stored text shown, never acted on.

Posts, themes, names and error messages may hold control characters: stored before
input refused them, written by a model, or read from a network. Printed as they
are, ESC sequences would set the terminal's title or, with OSC 52, its clipboard.
rich removes only a few controls (bell, backspace, CR, VT, FF) and lets ESC through,
so this console shows each one as a visible symbol (kit/control_chars.py) where text
becomes something to print:

- `render_str`: every plain string (a `print` argument, a table cell, a panel's
  text, a title) before rich measures it, so tables keep their widths;
- `render`: every segment drawn, as a net for `Text` built elsewhere. Segments rich
  itself marks as control (cursor moves of a live display) are its own, kept.

Markup is a different matter (`console()` turns it off): this is about bytes that
reach the terminal.

A pipe whose reader left (`| head -1`): rich would end the process there with exit 1;
this console hands the BrokenPipeError to the root group, which ends it as any Unix
tool ends (cli/process_exit.py).
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from socialgen.kit.control_chars import printable


class PrintableConsole(Console):
    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more from this console: its reader is gone
        raise BrokenPipeError(errno.EPIPE, "the reader of the pipe left")

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(printable(text), **options)

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterator[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None:
                shown = printable(segment.text)
                if shown is not segment.text:
                    segment = Segment(shown, segment.style)
            yield segment
