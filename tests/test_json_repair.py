"""Keeping the complete part of a JSON answer cut off at the token limit."""

from __future__ import annotations

import json

import pytest

from socialgen.ai.json_repair import close_truncated


def test_complete_items_are_kept_and_brackets_closed() -> None:
    cut = '{"name": "N", "slides": [{"t": "a}"}, {"t": "b ]"}, {"t": "c'
    repaired = close_truncated(cut)
    assert repaired is not None
    assert json.loads(repaired) == {"name": "N", "slides": [{"t": "a}"}, {"t": "b ]"}]}


def test_escaped_quotes_do_not_end_strings() -> None:
    cut = '{"posts": [{"theme": "say \\"hi\\" {"}, {"theme": "x'
    assert json.loads(close_truncated(cut) or "") == {"posts": [{"theme": 'say "hi" {'}]}


def test_nested_arrays() -> None:
    assert json.loads(close_truncated('{"a": [[1, 2], [3, 4], [5') or "") == {"a": [[1, 2], [3, 4]]}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "N", "slides": [{"t": "a"}]}',  # complete: nothing to repair
        '{"name": "N", "slid',  # nothing complete inside
        '{"a": [1, 2}',  # wrong, not cut
        "not json at all",
        "",
    ],
)
def test_nothing_to_keep(text: str) -> None:
    assert close_truncated(text) is None
