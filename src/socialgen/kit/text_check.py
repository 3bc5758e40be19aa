"""Text that comes in (JSON bodies, form fields, query strings, command lines, MCP
tool arguments) is valid Unicode without control characters other than tab, line feed
and carriage return, or it is refused with a clear 400 before any work.

JSON may carry "\\ud800" (a lone UTF-16 surrogate) and "\\u0000"; Python decodes both
into a `str`, and both fail much later: a surrogate cannot be encoded as UTF-8 (to
SQLite, a model, an SSE stream), PostgreSQL refuses NUL in text. Other control
characters store fine but act when printed on a terminal (ESC sequences set its title
or its clipboard: see `control_chars`). One check, here, used by every way text
enters: the HTTP bodies (`request_body`), the app-wide check of path, query and
pydantic bodies, MCP tool arguments, and the CLI's options and arguments (`cli.support`).

Foundation: only `errors` is needed, so any layer may use it (the CLI stays light).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from socialgen.kit.control_chars import find_control
from socialgen.kit.errors import BadRequest

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_BYTES = range(0xDC80, 0xDD00)  # what surrogateescape makes of bytes 0x80-0xFF
# Characters that show nothing although Unicode does not class them as format (Cf),
# control (Cc) or whitespace: Hangul fillers, the blank Braille pattern, the combining
# grapheme joiner and the variation selectors. A post of these alone looks empty.
_BLANK_LOOKALIKES = frozenset(
    "\u034f\u115f\u1160\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
# Control characters a secret (a token, a password) may not hold: C0 (CR and LF
# included), DEL and C1. Pasted with a token, they end up in an HTTP header.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def text_problem(text: str, where: str) -> str | None:
    """Why `text` is refused, in one sentence naming the field `where` and the
    character, or None when it is clean: a lone UTF-16 surrogate, a NUL, or another
    control character but tab, line feed and carriage return.

    A `str` holds no surrogate pairs (a valid pair decodes to one character), so any
    surrogate found is a lone one."""
    if (surrogate := _SURROGATE.search(text)) is not None:
        code = ord(surrogate.group())
        return f"{where} contains a lone UTF-16 surrogate (\\u{code:04x}); send valid Unicode text"
    found = find_control(text)
    if found is None:
        return None
    index, char = found
    if char == "\x00":
        return f"{where} contains a NUL character (\\u0000), which cannot be stored; remove it"
    return (
        f"{where} contains a control character (U+{ord(char):04X}) at {_place(text, index)}: "
        "only tab and line breaks may be used"
    )


def _place(text: str, index: int) -> str:
    """ "character 12", or "line 3, character 5" in text of several lines (both counted
    from 1, as an editor does), so the character can be found."""
    line = text.count("\n", 0, index)
    if line == 0:
        return f"character {index + 1}"
    column = index - text.rindex("\n", 0, index)
    return f"line {line + 1}, character {column}"


def shows_nothing(text: str) -> bool:
    """Whether `text` would look empty: only whitespace, format characters (zero-width
    space and joiners, the byte order mark, direction marks: Unicode's Cf), control
    characters and a few blank look-alikes. `"".strip()` misses all but whitespace,
    so a post of zero-width spaces passed for one with content."""
    return all(
        char.isspace() or char in _BLANK_LOOKALIKES or unicodedata.category(char) in ("Cf", "Cc")
        for char in text
    )


def secret_problem(value: str, *, ascii_only: bool) -> str | None:
    """Why `value` cannot be a secret sent to a network, or None when it can: a control
    character (a line break pasted with it, say), or, when it travels in an HTTP header
    (`ascii_only`: a bearer token), a character outside printable ASCII. Says where,
    never what the secret is."""
    found = _CONTROL.search(value)
    if found:
        char = found.group()
        name = {"\n": "a line feed", "\r": "a carriage return", "\t": "a tab"}.get(
            char, "a control character"
        )
        return (
            f"contains {name} (U+{ord(char):04X}) at character {found.start() + 1}; "
            "give it alone, on one line"
        )
    if ascii_only:
        for index, char in enumerate(value):
            if not " " <= char <= "~":
                return (
                    f"contains a non-ASCII character (U+{ord(char):04X}) at character "
                    f"{index + 1}, which cannot travel in an HTTP header; copy the token "
                    "again from the network"
                )
    return None


def check_text(value: Any, where: str = "") -> None:
    """Refuse (BadRequest, 400) a lone surrogate, a NUL or another control character
    (`text_problem`) anywhere in `value`: a string,
    or the lists and objects of decoded JSON, keys included. `where` names the field
    ("" is the whole body); nested places read "posts[1].content".

    Iterative, not recursive: JSON nested as deep as the decoder allows must not hit
    the recursion limit here."""
    pending: list[tuple[Any, str]] = [(value, where)]
    while pending:
        item, place = pending.pop()
        if isinstance(item, str):
            if (problem := text_problem(item, place or "The request body")) is not None:
                raise BadRequest(problem)
        elif isinstance(item, dict):
            for key, child in reversed(item.items()):
                owner = f" in {place}" if place else ""
                if isinstance(key, str) and (problem := text_problem(key, f"A field name{owner}")):
                    raise BadRequest(problem)
                pending.append((child, f"{place}.{key}" if place else str(key)))
        elif isinstance(item, list | tuple):
            pending.extend((child, f"{place}[{i}]") for i, child in reversed(list(enumerate(item))))


def decode_json(raw: bytes) -> Any:
    """The JSON document in `raw`, decoded as UTF-8 (RFC 8259; a UTF-8 byte order mark
    is skipped), or BadRequest "Malformed JSON body: ..."."""
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise BadRequest(malformed_json(error)) from None


def malformed_json(error: BaseException) -> str:
    """The 400 message for a body that does not decode, whichever decoder failed."""
    if isinstance(error, UnicodeDecodeError):
        byte = error.object[error.start]
        return (
            f"Malformed JSON body: it is not UTF-8 text (byte 0x{byte:02x} at "
            f"position {error.start}); send JSON encoded as UTF-8"
        )
    if isinstance(error, RecursionError):
        return "Malformed JSON body: it is nested too deeply"
    return f"Malformed JSON body: {error}"


def check_cli_text(value: str, where: str) -> None:
    """A command-line option or argument: `check_text`, except that a character
    Python made of a byte the terminal's encoding could not decode (surrogateescape)
    is reported as that byte, which is what the user can act on."""
    found = _SURROGATE.search(value)
    if found is not None and ord(found.group()) in _ESCAPED_BYTES:
        byte = ord(found.group()) - 0xDC00
        raise BadRequest(
            f"{where} is not valid UTF-8 text (byte 0x{byte:02x}); "
            "check the terminal's encoding (e.g. LANG=C.UTF-8)"
        )
    check_text(value, where)
