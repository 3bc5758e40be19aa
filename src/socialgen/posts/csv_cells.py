"""CSV cells a spreadsheet would run as formulas, made plain text and read back.

A spreadsheet opening a CSV file takes a cell that starts with `=`, `+`, `-` or `@`
(and, in some, a tab or a carriage return) as a formula: `=HYPERLINK(...)` in a post
becomes a live link, `@SUM(...)` a calculation, and older ones run commands. OWASP's
rule (CSV Injection): such a cell gets a leading single quote, which spreadsheets
show as text. Post text and themes are the user's, or a model's, or a network's, so
every cell of an export follows the rule.

`socialgen posts import` reads these files back: `plain_cell` takes the quote off
again. So that every text comes back as it was, a cell that already starts with
quotes before such a character gets one more ("'=x" is written "''=x"), and exactly
one is removed on reading.
"""

from __future__ import annotations

import re

# Quotes, then a character a spreadsheet starts a formula with (OWASP's list).
_RUNS_AS_FORMULA = re.compile("'*[=+\\-@\t\r]")
_QUOTED_FORMULA = re.compile("'+[=+\\-@\t\r]")


def safe_cell(text: str) -> str:
    """`text` as a cell a spreadsheet shows and never runs."""
    return f"'{text}" if _RUNS_AS_FORMULA.match(text) else text


def plain_cell(cell: str) -> str:
    """A cell as `safe_cell` was given it: the one quote it added taken off."""
    return cell[1:] if _QUOTED_FORMULA.match(cell) else cell
