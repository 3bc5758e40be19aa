"""Shared by tests that need a posting queue ready (tests/test_cli_json_everywhere.py's
samples): slots set, a post queued, through the CLI itself."""

from __future__ import annotations

import json
from collections.abc import Callable

from typer.testing import Result

SLOTS = "daily 08:30"


def queue_ready(invoke: Callable[[list[str]], Result]) -> list[str]:
    """The workspace queue with a slot every day; no arguments to add."""
    result = invoke(["queue", "slots", "set", SLOTS, "--json"])
    assert result.exit_code == 0, result.output
    return []


def queued_post(invoke: Callable[[list[str]], Result], post_id: str) -> str:
    """`post_id`, put in the workspace queue (made ready first)."""
    queue_ready(invoke)
    result = invoke(["posts", "queue", post_id, "--json"])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["postId"])
