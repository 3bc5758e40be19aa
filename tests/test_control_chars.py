"""Control characters in text (kit/control_chars.py): refused where text comes in,
dropped from text another service wrote, shown as symbols where text is printed.

ESC is the one that matters: printed raw, `ESC ] 52 ; c ; <base64> BEL` writes the
clipboard of terminals that support OSC 52, `ESC ] 0 ; ... BEL` sets the window title.
The HTTP bodies, form fields and the command line are covered in
test_bad_text_input.py, MCP tool arguments in test_mcp_http.py; the terminal in
test_terminal_output.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.control_chars import (
    escape_json_controls,
    find_control,
    printable,
    without_controls,
)
from socialgen.kit.errors import BadRequest
from socialgen.kit.text_check import check_text, text_problem
from socialgen.publishing.networks.bluesky.history import _past_post as bluesky_past_post
from socialgen.publishing.networks.mastodon.history import _past_post as mastodon_past_post
from socialgen.sources.profiles import _finish
from socialgen.sources.profiles.base import RawPost
from socialgen.store.tables import Conversation, Post
from tests.conftest import Store

runner = CliRunner()
OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # "write hello to the clipboard"
TITLE = "\x1b]0;You have been logged out\x07"
# Every control character: C0, DEL, C1.
CONTROLS = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0))]
ALLOWED = {"\t", "\n", "\r"}


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


# --- the helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize("char", CONTROLS, ids=lambda char: f"U+{ord(char):04X}")
def test_every_control_but_tab_and_line_breaks_is_found_dropped_and_shown(char: str) -> None:
    text = f"ab{char}c"
    if char in ALLOWED:
        assert find_control(text) is None
        assert without_controls(text) == text
        assert text_problem(text, "content") is None
    else:
        assert find_control(text) == (2, char)
        assert without_controls(text) == "abc"
        assert text_problem(text, "content") is not None
    shown = printable(text)
    if char in ("\t", "\n"):
        assert shown == text
    else:  # a symbol or an escape, never the character itself
        assert char not in shown and shown.startswith("ab") and shown.endswith("c")


def test_printable_shows_each_control_as_what_it_is() -> None:
    assert printable(f"Hi{OSC52}!") == "Hi␛]52;c;aGVsbG8=␇!"
    assert printable("a\x7fb\x9b2J") == "a␡b\\x9b2J"
    # CRLF ends a line; a lone CR would print over the line's start.
    assert printable("one\r\ntwo\rFAKE") == "one\ntwo␍FAKE"
    assert printable("tab\tand\nline, ✓ 日本 🚀") == "tab\tand\nline, ✓ 日本 🚀"


def test_the_message_names_the_field_the_character_and_where_it_is() -> None:
    assert text_problem(f"Hi{OSC52}", "content") == (
        "content contains a control character (U+001B) at character 3: "
        "only tab and line breaks may be used"
    )
    assert text_problem(f"First line\r\nsecond {TITLE}", "posts[1]") == (
        "posts[1] contains a control character (U+001B) at line 2, character 8: "
        "only tab and line breaks may be used"
    )
    assert text_problem("Windows\r\nline\tends", "content") is None
    # The messages that were there before keep their words.
    assert text_problem("a\x00", "content") == (
        "content contains a NUL character (\\u0000), which cannot be stored; remove it"
    )
    with pytest.raises(BadRequest, match=r"^A field name in style contains a control"):
        check_text({"style": {"na\x1bme": "x"}})
    with pytest.raises(BadRequest, match=r"^tags\[1\] contains a control character \(U\+009B\)"):
        check_text({"tags": ["ok", "\x9b"]})


def test_json_output_escapes_every_control_and_reads_back_the_same() -> None:
    data = {"content": f"C0{OSC52} DEL\x7f C1\x9b é 🚀"}
    text = escape_json_controls(json.dumps(data, ensure_ascii=False))
    assert not any(char in text for char in CONTROLS)
    assert "\\u001b" in text and "\\u007f" in text and "\\u009b" in text
    assert "é 🚀" in text  # the rest stays as it is
    assert json.loads(text) == data


# --- file imports: the row is refused, named -----------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def test_an_import_row_with_a_control_character_is_refused_by_its_number(
    store: Store, tmp_path: Path
) -> None:
    before = store.scalar(sa.select(sa.func.count()).select_from(Post))
    csv_file = write(tmp_path, "posts.csv", f'content,theme\r\n"Fine",ok\r\n"Hi{OSC52}",ok\r\n')
    result = run("posts", "import", csv_file)
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert (
        "Nothing imported from posts.csv (1 invalid row): row 3: Content contains a control" in said
    )
    assert "(U+001B) at character 3: only tab and line breaks may be used" in said

    themed = json.dumps([{"content": "Fine", "theme": f"Plan{TITLE}"}])
    result = run("posts", "import", write(tmp_path, "posts.json", themed))
    assert result.exit_code == 1
    assert "item 1: theme contains a control character (U+001B) at character 5" in " ".join(
        result.output.split()
    )
    published = json.dumps(
        [
            {
                "content": "Out there",
                "status": "published",
                "publishedAt": "2025-03-01T09:00:00Z",
                "postUrl": "https://example.com/\x1b[2J",
            }
        ]
    )
    result = run("posts", "import", write(tmp_path, "history.json", published))
    assert result.exit_code == 1
    assert "item 1: postUrl contains a control character (U+001B)" in " ".join(
        result.output.split()
    )
    assert store.scalar(sa.select(sa.func.count()).select_from(Post)) == before

    # Windows line ends and tabs are text, welcome.
    fine = write(tmp_path, "fine.csv", 'content,theme\r\n"Line one\r\nline\ttwo",Plan\r\n')
    assert run("posts", "import", fine).exit_code == 0
    assert store.scalar(sa.select(Conversation.title).where(Conversation.title == "Plan")), (
        "the theme became the conversation's title"
    )


# --- text another service wrote: its controls dropped, the post kept -----------------------


class MastodonStatus(dict[str, Any]):
    @property
    def id(self) -> str:
        return str(self["id"])


def test_a_history_pull_drops_control_characters_and_keeps_the_post() -> None:
    status = MastodonStatus(
        id="1",
        content=f"<p>Ship weekly{OSC52}</p>",
        spoiler_text=f"cw{TITLE}",
        url="https://mastodon.example/@me/1",
        created_at=datetime(2025, 3, 1, tzinfo=UTC),
        favourites_count=1,
        reblogs_count=0,
        replies_count=0,
    )
    assert (
        mastodon_past_post(status).text
        == "cw]0;You have been logged out\n\nShip weekly]52;c;aGVsbG8="
    )

    view = SimpleNamespace(
        uri="at://did:plc:me/app.bsky.feed.post/3k",
        author=SimpleNamespace(handle="me.bsky.social"),
        record={"text": f"Ship\x9b2J weekly\r\n{TITLE}", "createdAt": "2025-03-01T09:00:00Z"},
        indexed_at="2025-03-01T09:00:01Z",
        like_count=0,
        repost_count=0,
        quote_count=0,
        reply_count=0,
    )
    assert bluesky_past_post(view).text == "Ship2J weekly\r\n]0;You have been logged out"


def test_posts_read_from_a_profile_drop_control_characters() -> None:
    found = [RawPost(f"Hello{OSC52} world", datetime(2025, 3, 1, tzinfo=UTC))]
    (post,) = _finish(found, 10)
    assert post.content == "Hello]52;c;aGVsbG8= world"
