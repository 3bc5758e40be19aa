"""Streamed text wrapped at word boundaries for a terminal.

A model streams pieces of words ("import", "ance"); written as they come, the
terminal breaks the line wherever its last column falls, mid-word. `WordWrap` holds
back the word being written until it ends, and starts a new line before a word
that would not fit. Widths are terminal cells (rich.cells), so wide characters
count double. A word longer than the whole line is written as it comes.
Only for a terminal: piped output keeps the model's text byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len


class WordWrap:
    def __init__(self, write: Callable[[str], object], width: int) -> None:
        self.write = write
        self.width = max(width, 10)
        self.column = 0  # cells already on the current line
        self.spaces = ""  # blanks seen after the last word, not written yet
        self.word = ""

    def feed(self, text: str) -> None:
        for char in text:
            if char == "\n":
                self._put_word()
                self.spaces = ""  # trailing blanks of a line are never shown
                self.write("\n")
                self.column = 0
            elif char in " \t":
                self._put_word()
                self.spaces += char
            else:
                self.word += char
                if cell_len(self.word) >= self.width:  # longer than any line
                    self._put_word()

    def end(self) -> None:
        """Write the word held back (the stream ended on it)."""
        self._put_word()
        self.spaces = ""

    def _put_word(self) -> None:
        if not self.word:
            return
        needed = cell_len(self.spaces) + cell_len(self.word)
        if self.column > 0 and self.column + needed > self.width:
            self.write("\n")
            self.column, self.spaces = 0, ""
        self.write(self.spaces + self.word)
        self.column += cell_len(self.spaces) + cell_len(self.word)
        self.spaces, self.word = "", ""
