"""Help fits 80 columns: every command's and group's `--help`, drawn 80 columns wide.

What "fits" means here, precisely:
- no line of any help page is wider than 80 columns;
- nothing is cut: in a group's list of commands, each command's line is the first
  sentence of its help, whole (click cut it to the columns left and put "..." at
  the cut: "Ask anything, or ask for a post: the..."); a sentence too long for one
  line wraps under itself instead.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.cli.suggest import summary

runner = CliRunner()
WIDTH = 80


def _pages(group: Any, ctx: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    pages = [(path, group)]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if hasattr(command, "list_commands"):
            pages += _pages(command, typer.Context(command, parent=ctx), [*path, name])
        else:
            pages.append(([*path, name], command))
    return pages


def every_page() -> list[tuple[list[str], Any]]:
    root = typer.main.get_command(app)
    return _pages(root, typer.Context(root), [])


def help_at_80(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, (path, result.output)
    return result.output


def listed_commands(page: str) -> dict[str, str]:
    """A help page's "Commands:" section: each name with its text, wrapped lines joined."""
    section = page.split("\nCommands:\n", 1)[1] if "\nCommands:\n" in page else ""
    listed: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        if not line.strip():
            break
        found = re.match(r"^  (\S+)\s{2,}(.*)$", line)
        if found:
            name = found.group(1)
            listed[name] = found.group(2).strip()
        elif name:
            listed[name] += " " + line.strip()
    return listed


def test_every_help_page_fits_80_columns_and_cuts_nothing() -> None:
    pages = every_page()
    groups = 0
    for path, command in pages:
        page = help_at_80(path)
        too_wide = [line for line in page.splitlines() if len(line) > WIDTH]
        assert not too_wide, (path, too_wide)
        if not hasattr(command, "list_commands"):
            continue
        groups += 1
        listed = listed_commands(page)
        ctx = typer.Context(command)
        subs = {name: command.get_command(ctx, name) for name in command.list_commands(ctx)}
        assert set(listed) == {name for name, sub in subs.items() if not sub.hidden}, path
        for name, text in listed.items():
            assert text == summary(subs[name].help or ""), (path, name, text)
            assert not text.endswith("..."), (path, name, text)
    assert groups >= 15 and len(pages) > 80


def test_the_root_lists_each_group_by_its_whole_first_sentence() -> None:
    page = help_at_80([])
    listed = listed_commands(page)

    assert listed["chat"] == "Ask anything, or ask for a post: the answer streams as it is written."
    assert listed["provider-key"].endswith("(OpenAI, Anthropic, Gemini ...) for litellm.")
    assert listed["insights"] == (
        "What works in your own published posts, and the best times to post."
    )


@pytest.mark.parametrize(
    ("help_text", "first"),
    [
        ("One sentence. Another one.", "One sentence."),
        ("Keys (OpenAI, Gemini ...) for litellm. More.", "Keys (OpenAI, Gemini ...) for litellm."),
        ("Ends in brackets (see docs/mcp.md). More.", "Ends in brackets (see docs/mcp.md)."),
        ("No full stop at all", "No full stop at all"),
        ("First paragraph\nwraps here.\n\nSecond paragraph.", "First paragraph wraps here."),
        ("", ""),
    ],
)
def test_summary_is_the_first_sentence_whole(help_text: str, first: str) -> None:
    assert summary(help_text) == first
