"""Text that cannot be stored or printed (a lone UTF-16 surrogate, a NUL, another
control character but tab and line breaks), bodies that are not UTF-8, an oversized
form field and an empty PDF: a clear 400 (413 for size) on every endpoint, before any
work, and a clear CLI error. In-process here; through a real socket in
test_bad_text_live.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.cli.main import app as cli_app
from socialgen.store.engine import read_session
from socialgen.store.tables import (
    ContentStyle,
    Conversation,
    Message,
    Post,
    PostVersion,
    QuotaReservation,
    StylePost,
)
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.scripted_support import ScriptedAI

SURROGATE = ("x\ud800y", "a lone UTF-16 surrogate (\\ud800); send valid Unicode text")
NUL = ("x\u0000y", "a NUL character (\\u0000), which cannot be stored; remove it")
# ESC: stores fine, but printed on a terminal it starts a sequence (OSC 52 writes the
# clipboard); tab, line feed and carriage return are the only controls text may hold.
ESC = (
    "x\x1by",
    "a control character (U+001B) at character 2: only tab and line breaks may be used",
)
BAD_TEXT = [
    pytest.param(*SURROGATE, id="surrogate"),
    pytest.param(*NUL, id="nul"),
    pytest.param(*ESC, id="escape"),
]
MARK = "<<BAD>>"  # where the bad text goes in an endpoint's body

AI = "/api/v1/ai-conversation"
STYLES = "/api/v1/content-styles"
CALENDAR = "/api/v1/content-calendar/generate"
CAROUSEL = "/api/v1/carousel"

# Every endpoint that takes text in a body: method, path ({ws} {post} {style} filled
# in), a body with MARK where the bad text goes, and the field the message names.
ENDPOINTS: list[tuple[str, str, dict[str, Any], str]] = [
    ("PUT", AI + "/post/{ws}/{post}", {"content": MARK}, "content"),
    ("POST", AI + "/chat/{ws}", {"userInput": MARK}, "userInput"),
    (
        "POST",
        AI + "/generate-post/{ws}",
        {"userInput": "ok", "contentStyleId": MARK},
        "contentStyleId",
    ),
    (
        "POST",
        AI + "/generate-batch-posts/{ws}",
        {"userInput": "ok", "postIds": ["a", MARK]},
        "postIds[1]",
    ),
    ("POST", STYLES + "/{ws}", {"name": MARK}, "name"),
    ("PUT", STYLES + "/{ws}/{style}", {"name": "ok", "description": MARK}, "description"),
    ("POST", STYLES + "/{ws}/{style}/posts", {"posts": ["fine", MARK]}, "posts[1]"),
    ("PUT", STYLES + "/{ws}/{style}/posts/{post}", {"content": MARK}, "content"),
    ("POST", CALENDAR + "/{ws}", {"calendarLength": 7, "prompt": MARK}, "prompt"),
    ("POST", CAROUSEL + "/generate-with-images/{ws}", {"prompt": MARK}, "prompt"),
    (
        "POST",
        CAROUSEL + "/regenerate-slide/{ws}",
        {"carouselId": "c1", "slideIndex": 0, "prompt": MARK},
        "prompt",
    ),
    ("POST", CAROUSEL + "/generate-pdf", {"slidesHtml": ["<p>ok</p>", MARK]}, "slidesHtml[1]"),
]
ENDPOINT_IDS = [f"{method} {path}" for method, path, _, _ in ENDPOINTS]
# The multipart endpoints, with the text fields they need besides the one tested.
FORMS = [
    pytest.param(CALENDAR + "/{ws}", {"calendarLength": "7"}, id="calendar"),
    pytest.param(CAROUSEL + "/generate-with-images/{ws}", {}, id="carousel"),
    pytest.param(
        CAROUSEL + "/regenerate-slide/{ws}", {"carouselId": "c1", "slideIndex": "0"}, id="slide"
    ),
]


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


@pytest.fixture
def ids(store: Store) -> dict[str, str]:
    """A real draft and style, so that "nothing changed" means something."""
    from socialgen.store.engine import transaction
    from socialgen.styles.service import create_style

    post = store.post("The original text")
    with transaction(store.engine) as session:
        style = create_style(session, store.workspace_id, "Plain", "short and plain")
        style_id = style.id
    return {"ws": store.workspace_id, "post": post.id, "style": style_id}


def fill(value: Any, text: str) -> Any:
    if value == MARK:
        return text
    if isinstance(value, list):
        return [fill(item, text) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, text) for key, item in value.items()}
    return value


def snapshot(store: Store) -> dict[str, int]:
    """Row counts of everything a request could write, the quota used, the draft's text."""
    tables = (Post, PostVersion, Conversation, Message, ContentStyle, StylePost, QuotaReservation)
    counts = {
        table.__name__: int(store.scalar(select(func.count()).select_from(table)))
        for table in tables
    }
    with read_session(store.engine) as session:
        counts["posts_used"] = get_usage(session, store.workspace_id).posts_used
    return counts


def send(
    client: TestClient, method: str, path: str, ids: dict[str, str], body: bytes, **kw: Any
) -> Any:
    headers = {**kw.pop("headers"), "content-type": "application/json"}
    return client.request(method, path.format(**ids), content=body, headers=headers, **kw)


@pytest.mark.parametrize(("text", "problem"), BAD_TEXT)
@pytest.mark.parametrize(("method", "path", "body", "field"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_bad_text_in_a_json_body_is_refused_before_any_work(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    ids: dict[str, str],
    scripted_ai: ScriptedAI,
    method: str,
    path: str,
    body: dict[str, Any],
    field: str,
    text: str,
    problem: str,
) -> None:
    before = snapshot(store)
    raw = json.dumps(fill(body, text)).encode()  # ASCII: "\ud800" and "\u0000" as escapes
    assert b"\\u" in raw
    response = send(ai_client, method, path, ids, raw, headers=headers)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"success": False, "message": f"{field} contains {problem}"}
    assert snapshot(store) == before
    assert scripted_ai.calls == []  # no model was asked


@pytest.mark.parametrize(("method", "path", "body", "field"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_a_body_that_is_not_utf8_is_malformed_json(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    ids: dict[str, str],
    scripted_ai: ScriptedAI,
    method: str,
    path: str,
    body: dict[str, Any],
    field: str,
) -> None:
    before = snapshot(store)
    # Latin-1 "é" (0xe9), and UTF-8-encoded surrogates (json.loads would let those in).
    for raw, byte in ((b"\xe9t\xe9", "0xe9"), (b"x\xed\xa0\x80", "0xed")):
        payload = json.dumps(fill(body, "@@")).encode().replace(b"@@", raw)
        response = send(ai_client, method, path, ids, payload, headers=headers)
        assert response.status_code == 400, response.text
        message = response.json()["message"]
        assert message.startswith(f"Malformed JSON body: it is not UTF-8 text (byte {byte} at")
        assert "codec" not in message
    assert snapshot(store) == before
    assert scripted_ai.calls == []


def test_nested_places_and_field_names_are_named(
    ai_client: TestClient, headers: dict[str, str], ids: dict[str, str]
) -> None:
    path = AI + "/post/{ws}/{post}"
    cases = [
        ({"content": "ok", "x\ud83d": 1}, "A field name contains a lone UTF-16 surrogate"),
        ({"content": "ok", "extra": {"deep": ["a", "\udc00"]}}, "extra.deep[1] contains a lone"),
        ("just a string \u0000", "The request body contains a NUL character"),
    ]
    for body, start in cases:
        response = send(ai_client, "PUT", path, ids, json.dumps(body).encode(), headers=headers)
        assert response.status_code == 400
        assert response.json()["message"].startswith(start), response.json()
    # JSON nested past the decoder's depth: the same 400 from both decoding paths.
    deep = b'{"content": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    for method, url in (("PUT", path), ("POST", CALENDAR + "/{ws}")):
        response = send(ai_client, method, url, ids, deep, headers=headers)
        assert (response.status_code, response.json()["message"]) == (
            400,
            "Malformed JSON body: it is nested too deeply",
        )
    # A valid surrogate pair is one character, welcome as any other.
    fine = send(
        ai_client, "PUT", path, ids, b'{"content": "ship it \\ud83d\\ude80"}', headers=headers
    )
    assert fine.status_code == 200, fine.text
    assert fine.json()["data"]["content"] == "ship it \U0001f680"


def test_nul_in_the_query_string_or_the_path_is_refused(
    client: TestClient, store: Store, headers: dict[str, str], ids: dict[str, str]
) -> None:
    ws = store.workspace_id
    profile = client.get(
        f"{STYLES}/{ws}/get-posts-from-social-profile",
        params={"profileUrl": "https://example.com/\x00"},
        headers=headers,
    )
    assert profile.status_code == 400
    assert profile.json()["message"] == f"profileUrl contains {NUL[1]}"
    style = client.get(f"{STYLES}/{ws}/abc%00def", headers=headers)
    assert (style.status_code, style.json()["message"]) == (400, f"styleId contains {NUL[1]}")
    post = client.delete(f"{AI}/post/{ws}/{ids['post']}%00", headers=headers)
    assert (post.status_code, post.json()["message"]) == (400, f"postId contains {NUL[1]}")
    assert snapshot(store)["Post"] == 1


@pytest.mark.parametrize(("path", "fields"), FORMS)
def test_bad_form_fields_are_refused(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    ids: dict[str, str],
    scripted_ai: ScriptedAI,
    path: str,
    fields: dict[str, str],
) -> None:
    before = snapshot(store)
    url = path.format(**ids)
    cases: list[tuple[bytes, int, str]] = [
        (b"x\x00y", 400, f"prompt contains {NUL[1]}"),
        (b"x\x1by", 400, f"prompt contains {ESC[1]}"),
        (b"caf\xe9", 400, "The form field `prompt` is not UTF-8 text (byte 0xe9 at position 3)"),
        # Over the field's cap, under the form's (a 30 MB form is refused by its
        # Content-Length before any part is read: tests/test_hostile_bodies.py).
        (b"x" * (1024 * 1024), 413, "The form field `prompt` is larger than 256 kB"),
    ]
    for value, status, message in cases:
        form = {name: (None, text.encode()) for name, text in fields.items()}
        response = ai_client.post(url, headers=headers, files={**form, "prompt": (None, value)})
        assert (response.status_code, response.json()["message"]) == (status, message)
    assert snapshot(store) == before
    assert scripted_ai.calls == []


def test_an_empty_pdf_is_refused(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    before = snapshot(store)
    url = f"{CALENDAR}/{store.workspace_id}"
    empty = {"pdf": ("notes.pdf", b"", "application/pdf")}
    for fields in ({"calendarLength": "7"}, {"calendarLength": "7", "prompt": "shipping"}):
        response = ai_client.post(url, headers=headers, data=fields, files=empty)
        assert (response.status_code, response.json()["message"]) == (400, "The PDF is empty")
    # The empty file input a browser sends when no file was chosen is still no PDF.
    unchosen = ai_client.post(
        url, headers=headers, data={"calendarLength": "7"}, files={"pdf": ("", b"", "")}
    )
    assert unchosen.status_code == 400
    assert unchosen.json()["message"].startswith("Give at least one source")
    assert snapshot(store) == before
    assert scripted_ai.calls == []


# --- the CLI ---------------------------------------------------------------------------

runner = CliRunner()


@pytest.mark.parametrize(("text", "problem"), BAD_TEXT)
def test_the_cli_refuses_bad_text_options(store: Store, text: str, problem: str) -> None:
    post = store.post("The original text")
    before = snapshot(store)
    result = runner.invoke(cli_app, ["posts", "edit", post.id, "--content", text])
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # no traceback, a clean exit
    assert f"Error: --content contains {problem}" in " ".join(result.output.split())
    as_json = runner.invoke(cli_app, ["style", "create", text, "--json"])
    assert as_json.exit_code == 1
    assert json.loads(as_json.output.strip().splitlines()[-1]) == {
        "success": False,
        "message": f"NAME contains {problem}",
    }
    assert snapshot(store) == before


def test_the_cli_names_bytes_the_terminal_could_not_decode(store: Store) -> None:
    """A real process: argv bytes that are not UTF-8 reach Python as surrogates."""
    post = store.post("The original text")
    before = snapshot(store)
    result = subprocess.run(
        [sys.executable, "-m", "socialgen", "posts", "edit", post.id, "--content", b"caf\xe9"],
        env={**os.environ, "LC_ALL": "C.UTF-8"},
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 1
    stderr = result.stderr.decode()
    assert "Traceback" not in stderr
    assert "--content is not valid UTF-8 text (byte 0xe9)" in " ".join(stderr.split())
    assert snapshot(store) == before


def test_the_cli_refuses_an_empty_pdf(store: Store, tmp_path: Any) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    result = runner.invoke(cli_app, ["calendar", "7", "--pdf", str(empty)])
    assert result.exit_code == 1
    assert "Error: The PDF is empty" in result.output


def test_the_cli_refuses_nul_in_text_it_reads_from_files_and_the_editor(
    store: Store, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text that comes from a file or $EDITOR, not from argv, is checked too."""
    post = store.post("The original text")
    before = snapshot(store)
    posts_file = tmp_path / "posts.txt"
    posts_file.write_text("A post\x00 with a NUL")
    slide = tmp_path / "slide.html"
    slide.write_text("<p>A slide\x00</p>")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf 'New\\000 text' > \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    style = runner.invoke(cli_app, ["style", "create", "Founder", "--json"])
    style_id = json.loads(style.output)["_id"]
    before = snapshot(store)

    attempts = {
        f"{posts_file} contains a NUL": ["style", "add-posts", style_id, "--file", str(posts_file)],
        f"{slide} contains a NUL": ["carousel", "pdf", str(slide), "-o", str(tmp_path / "out.pdf")],
        "The edited text contains a NUL": ["posts", "edit", post.id, "--editor"],
    }
    for message, args in attempts.items():
        result = runner.invoke(cli_app, args)
        assert result.exit_code == 1, (args, result.output)
        assert isinstance(result.exception, SystemExit), (args, repr(result.exception))
        assert message in " ".join(result.output.split()), (args, result.output)
    assert snapshot(store) == before
    assert not (tmp_path / "out.pdf").exists()
