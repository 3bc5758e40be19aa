"""Find the JSON object in a model's plain-text answer.

A model asked for JSON without a response format wraps it in fences or prose
("Sure! Here is the plan: ```json {...} ``` Hope it helps"). The first complete
object in the text is the answer; an object cut off at the token limit keeps its
complete items (json_repair)."""

from __future__ import annotations

import contextlib
import json

from socialgen.ai.json_repair import close_truncated

_decoder = json.JSONDecoder(strict=False)  # raw newlines inside strings: small models write them


def find_json(text: str) -> object:
    """The first JSON object in `text`. Raises ValueError when there is none."""
    start = text.find("{")
    while start != -1:
        value: object = None
        try:
            value, _end = _decoder.raw_decode(text, start)
        except ValueError:
            # An answer cut off at the token limit: keep its complete part, before
            # settling for an object nested inside it.
            repaired = close_truncated(text[start:].rstrip().removesuffix("```").rstrip())
            if repaired is not None:
                with contextlib.suppress(ValueError):
                    value = _decoder.decode(repaired)
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    raise ValueError("no JSON object in the answer")
