"""Bad text and oversized form fields through a real uvicorn socket: a JSON endpoint,
a multipart endpoint and the streaming endpoints answer a plain 400/413 JSON error
before any work (no stream is started, no model asked, nothing stored)."""

from __future__ import annotations

import json

import httpx

from tests.conftest import LiveServer, Store
from tests.scripted_support import ScriptedAI
from tests.test_bad_text_input import NUL, SURROGATE, snapshot

AI = "/api/v1/ai-conversation"


def _client(live_server: LiveServer, store: Store) -> httpx.Client:
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    return httpx.Client(base_url=live_server.base_url, headers=headers, timeout=30)


def _json_error(response: httpx.Response) -> tuple[int, str]:
    assert response.headers["content-type"] == "application/json"  # not a started stream
    body = response.json()
    assert body["success"] is False
    return response.status_code, body["message"]


def test_a_json_endpoint_over_a_socket(ai_live_server: LiveServer, store: Store) -> None:
    post = store.post("The original text")
    before = snapshot(store)
    url = f"{AI}/post/{store.workspace_id}/{post.id}"
    json_type = {"content-type": "application/json"}
    with _client(ai_live_server, store) as http:
        lone = http.put(url, content=b'{"content": "x\\ud800y"}', headers=json_type)
        assert _json_error(lone) == (400, f"content contains {SURROGATE[1]}")
        latin1 = http.put(url, content=b'{"content": "caf\xe9"}', headers=json_type)
        status, message = _json_error(latin1)
        assert (status, message.split(" (")[0]) == (
            400,
            "Malformed JSON body: it is not UTF-8 text",
        )
        fine = http.put(url, json={"content": "edited over the wire"})
        assert fine.status_code == 200
    assert snapshot(store) == {**before, "PostVersion": before["PostVersion"] + 1}


def test_streaming_endpoints_refuse_before_the_stream(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    before = snapshot(store)
    ws = store.workspace_id
    cases = [
        (f"{AI}/chat/{ws}", {"userInput": "hello\u0000"}, f"userInput contains {NUL[1]}"),
        (
            f"{AI}/generate-post/{ws}",
            {"userInput": "x\ud800"},
            f"userInput contains {SURROGATE[1]}",
        ),
        (
            f"/api/v1/content-calendar/generate/{ws}",
            {"calendarLength": 7, "prompt": "x\ud800"},
            f"prompt contains {SURROGATE[1]}",
        ),
        (
            f"/api/v1/carousel/generate-with-images/{ws}",
            {"prompt": "x\u0000"},
            f"prompt contains {NUL[1]}",
        ),
    ]
    with _client(ai_live_server, store) as http:
        for path, body, message in cases:
            raw = json.dumps(body).encode()  # the escapes as JSON text: \ud800, \u0000
            response = http.post(path, content=raw, headers={"content-type": "application/json"})
            assert _json_error(response) == (400, message)
    assert snapshot(store) == before
    assert scripted_ai.calls == []


def test_a_multipart_endpoint_over_a_socket(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    before = snapshot(store)
    url = f"/api/v1/content-calendar/generate/{store.workspace_id}"
    with _client(ai_live_server, store) as http:
        nul = http.post(url, files={"calendarLength": (None, b"7"), "prompt": (None, b"a\x00")})
        assert _json_error(nul) == (400, f"prompt contains {NUL[1]}")
        empty = http.post(
            url,
            files={"calendarLength": (None, b"7"), "pdf": ("notes.pdf", b"", "application/pdf")},
        )
        assert _json_error(empty) == (400, "The PDF is empty")
        # Over the field's cap, under the form's: the field is named. (A 30 MB form is
        # refused on its Content-Length: tests/test_hostile_bodies.py.)
        big = http.post(
            url, files={"calendarLength": (None, b"7"), "prompt": (None, b"x" * 1_000_000)}
        )
        assert _json_error(big) == (413, "The form field `prompt` is larger than 256 kB")
    assert snapshot(store) == before
    assert scripted_ai.calls == []
