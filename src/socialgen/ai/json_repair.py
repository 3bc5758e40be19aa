"""Keep the complete part of a JSON answer that was cut off.

A model that reaches its token limit stops mid-answer: `{"slides": [{...}, {..`.
The items written in full are still good, so the text is cut after the last
complete object or array inside the answer and the brackets still open are closed.
"""

from __future__ import annotations

_CLOSERS = {"{": "}", "[": "]"}


def close_truncated(text: str) -> str | None:
    """Valid-looking JSON made of `text`'s complete part, or None when there is
    nothing to keep (no complete inner object or array) or nothing was cut."""
    stack: list[str] = []
    in_string = escaped = False
    cut: tuple[int, str] | None = None  # (end of the kept text, the closers it needs)
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(char)
        elif char in "}]":
            if not stack or _CLOSERS[stack.pop()] != char:
                return None  # not JSON that was cut: JSON that is wrong
            if not stack:
                return None  # the answer was complete
            cut = (index + 1, "".join(_CLOSERS[opener] for opener in reversed(stack)))
    if cut is None:
        return None
    end, closers = cut
    return text[:end] + closers
