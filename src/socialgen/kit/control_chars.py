"""Control characters in text: found (to refuse), removed (text from elsewhere) or
made visible (text printed to a terminal).

A terminal acts on control characters instead of showing them: ESC starts sequences
that set the window title, move the cursor over what was printed or, with OSC 52,
write the clipboard; a lone carriage return prints over the start of the line. Text
socialgen stores or prints therefore holds none but tab, line feed and carriage
return (CRLF from Windows clients is common), and what was stored before that rule
is shown with each control character as a visible symbol.

Controls are C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F): Unicode's
category Cc. A UTF-8 terminal may read C1 as its 8-bit form (U+009B as CSI).
"""

from __future__ import annotations

import re

# Every control character but tab, line feed and carriage return.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# On output a lone carriage return is a control too (it prints over the line); one
# that ends a line before its line feed does no harm, and the line feed alone is kept.
_UNPRINTABLE = re.compile("\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# C0 and DEL have visible stand-ins (Unicode's Control Pictures: U+241B "␛" for ESC);
# C1 has none, so it is written as its escape ("\x9b").
_DEL_PICTURE = "\u2421"


def find_control(text: str) -> tuple[int, str] | None:
    """Where the first control character of `text` (tab, line feed and carriage
    return allowed) is: its index and the character, or None when there is none."""
    found = _CONTROL.search(text)
    return (found.start(), found.group()) if found else None


def without_controls(text: str) -> str:
    """`text` with its control characters (but tab, line feed, carriage return) removed:
    for text another service wrote, where refusing it would refuse what is not ours."""
    return _CONTROL.sub("", text)


def printable(text: str) -> str:
    """`text` safe to print on a terminal: each control character (tab and line feed
    kept; CRLF as a line feed) shown as a visible symbol, never acted on."""
    if not _UNPRINTABLE.search(text):
        return text  # the usual case, without building a new string
    return _UNPRINTABLE.sub(_visible, text)


def escape_json_controls(document: str) -> str:
    """A JSON document written with `ensure_ascii=False`, DEL and C1 escaped too.

    json.dumps escapes C0 in strings ("\\u001b") but writes DEL and C1 as they are.
    Outside strings JSON is ASCII, so every such character is in a string, and its
    \\u escape there means the same character: a reader decodes the same value."""
    return re.sub("[\x7f-\x9f]", lambda found: f"\\u{ord(found.group()):04x}", document)


def _visible(found: re.Match[str]) -> str:
    char = found.group()
    if char == "\r\n":
        return "\n"
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return _DEL_PICTURE
    return f"\\x{code:02x}"
