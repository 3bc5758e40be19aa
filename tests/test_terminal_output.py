"""Stored text never reaches a terminal with its control characters.

Text stored before input refused them (written here straight into the store), a
model's answer, an error quoting a name: every command prints them through one
console (cli/printable_console.py) that shows each control character as a symbol
(ESC as "␛"), on a terminal and in a pipe. --json keeps the text exact, as JSON
escapes. The only ESC a person's terminal may get is rich's own styling.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import sqlalchemy as sa
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.store.engine import transaction
from socialgen.store.tables import ContentStyle, Conversation, Post, PostVersion, StylePost
from tests.conftest import Store
from tests.generation_replies import QUESTIONS
from tests.scripted_support import ScriptedAI
from tests.terminal_support import A_TERMINAL

runner = CliRunner()
OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # would write "hello" to the clipboard
TITLE = "\x1b]0;Session expired\x07"  # would set the window title
STORED = f"Ship weekly{OSC52}\r\nsecond line\x9b2J\x7f\rFAKE"
SHOWN = "Ship weekly␛]52;c;aGVsbG8=␇"
RICH_STYLE = re.compile(r"\x1b\[[0-9;]*m")  # rich's bold and colours: its own codes
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, list(args), env=env)


def no_controls(text: str) -> None:
    """Nothing but tab and line feed, once rich's own styling codes are set aside."""
    left = CONTROL.findall(RICH_STYLE.sub("", text))
    assert not left, (left, text)


def stored_with_controls(store: Store) -> Post:
    """A post, its version and its conversation's title holding control characters,
    as a store written before they were refused may hold them."""
    post = store.post("placeholder")
    with transaction(store.engine) as session:
        session.execute(sa.update(Post).where(Post.id == post.id).values(content=STORED))
        session.execute(
            sa.update(PostVersion).where(PostVersion.post_id == post.id).values(content=STORED)
        )
        session.execute(
            sa.update(Conversation)
            .where(Conversation.id == post.conversation_id)
            .values(title=f"Plan{TITLE}")
        )
    return post


def test_posts_show_recent_and_timeline_show_controls_as_symbols(store: Store) -> None:
    post = stored_with_controls(store)
    for env in (A_TERMINAL, None):  # a person's terminal (rich tables), a pipe (plain rows)
        for args in (("posts", "show", post.id), ("posts", "recent"), ("posts", "timeline")):
            result = run(*args, env=env)
            assert result.exit_code == 0, result.output
            no_controls(result.stdout + result.stderr)
        shown = run("posts", "show", post.id, env=env).stdout
        assert "␛]52;c;aGVsbG8=␇" in shown and "\\x9b2J␡␍FAKE" in shown, shown


def test_json_keeps_the_text_exact_with_every_control_escaped(store: Store) -> None:
    post = stored_with_controls(store)
    for args in (("posts", "show", post.id, "--json"), ("posts", "recent", "--json")):
        result = run(*args)
        assert result.exit_code == 0, result.output
        no_controls(result.stdout)
        assert "\\u001b" in result.stdout and "\\u009b" in result.stdout
    detail = json.loads(run("posts", "show", post.id, "--json").stdout)
    assert detail["postContent"] == STORED  # decoded: the stored text, exact
    exported = json.loads(run("posts", "export", "--format", "json", "--json").stdout)
    no_controls(run("posts", "export", "--format", "json", "--json").stdout)
    assert exported["posts"][0]["content"] == STORED  # the posts as JSON, not a string


def test_errors_quoting_text_show_controls_as_symbols(store: Store) -> None:
    """A name given on the command line is refused; one already stored (an old style)
    is printed through the same console."""
    refused = run("posts", "show", f"nope{TITLE}")
    assert refused.exit_code == 1
    no_controls(refused.output)
    with transaction(store.engine) as session:
        style = ContentStyle(workspace_id=store.workspace_id, name=f"Old{TITLE}", description="")
        session.add(style)
        session.flush()
        session.add(StylePost(style_id=style.id, content=STORED))
    for env in (A_TERMINAL, None):
        for args in (("style", "list"), ("style", "show", style.id)):
            result = run(*args, env=env)
            assert result.exit_code == 0, result.output
            no_controls(result.stdout + result.stderr)
        assert "␛]0;Session expired␇" in run("style", "list", env=env).stdout


def test_a_models_answer_streams_with_controls_as_symbols(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda _call: f"Ship weekly{OSC52} and tell nobody."
    result = scripted_ai.invoke(["post", "shipping"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{SHOWN} and tell nobody.\n"
    no_controls(result.stdout + result.stderr)
    assert all(question in result.stderr for question in QUESTIONS)
    # What is stored holds no control character: the model's slip is dropped.
    saved = store.scalar(sa.select(Post.content))
    assert saved == "Ship weekly]52;c;aGVsbG8= and tell nobody."


def test_an_export_to_a_terminal_shows_controls_a_file_gets_them(store: Store) -> None:
    stored_with_controls(store)
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "socialgen", "posts", "export", "--format", "md"],
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
        )
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed: all read
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=60) == 0, process.stderr
    finally:
        os.close(leader)
    text = shown.decode("utf-8")
    assert SHOWN in text, text
    no_controls(text.replace("\r\n", "\n"))  # the terminal's own line ends

    piped = run("posts", "export", "--format", "md")  # data for a program: as stored
    assert piped.exit_code == 0
    assert STORED.replace("\r\n", "\n") in piped.stdout  # (click's reading makes CRLF LF)
