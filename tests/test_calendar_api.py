"""POST content-calendar/generate over SSE: JSON and multipart, sources, errors."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.ai.model import ModelError
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Post
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.generation_support import SseEvent, check_contract, parse_sse
from tests.scripted_support import ScriptedAI

URL = "/api/v1/content-calendar/generate"


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key()}


def count(store: Store, model: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(model)))


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def stream(
    client: TestClient, store: Store, headers: dict[str, str], **kwargs: Any
) -> list[SseEvent]:
    response = client.post(f"{URL}/{store.workspace_id}", headers=headers, **kwargs)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return [e for e in parse_sse(response.text) if e.name != "keepalive"]


def check_calendar_contract(events: list[SseEvent]) -> None:
    check_contract(events, "calendar")  # the models in socialgen.events are the contract


def test_a_seven_day_calendar_from_a_prompt(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda call: (
        f"Post on {call.prompt.split('Theme: ')[1].splitlines()[0]}."
    )
    events = stream(
        ai_client, store, headers, json={"calendarLength": 7, "prompt": "shipping weekly"}
    )
    check_calendar_contract(events)
    names = [e.name for e in events]
    assert names[0] == "generation_started"
    assert names[-1] == "calendar_complete"
    assert events[0].data["sources"] == [{"type": "prompt", "title": "shipping weekly"}]
    complete = events[-1].data
    assert complete["success"] is True
    assert complete["summary"] == {"total": 7, "generated": 7, "failed": 0}
    posts = complete["posts"]
    assert [p["index"] for p in posts] == list(range(1, 8))
    assert len({p["theme"] for p in posts}) == 7  # themes do not repeat
    assert [p["content"] for p in posts] == [f"Post on Idea {n}." for n in range(1, 8)]
    dates = [p["suggestedDate"] for p in posts]
    assert dates == sorted(dates) and len({d[:10] for d in dates}) == 7  # one a day
    completed = [
        e.data for e in events if e.name == "calendar_progress" and e.data["status"] == "completed"
    ]
    assert sorted(c["postId"] for c in completed) == sorted(p["postId"] for p in posts)
    assert count(store, Post) == 7
    assert count(store, Conversation) == 7  # each post has its own conversation
    assert used(store) == 7


def test_multipart_with_articles_as_a_comma_separated_string(
    allow_private_urls: None,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    paragraphs = [
        "Teams that release every week find problems sooner and recover faster than teams "
        "that ship once a quarter.",
        "A small release is easy to review, easy to test and easy to roll back when "
        "something goes wrong in production.",
        "Customers notice steady progress. A weekly changelog builds trust that a big "
        "yearly launch rarely does.",
        "The hard part is cultural: people must be willing to show unfinished work and "
        "to cut scope instead of moving dates.",
    ]
    page = (
        "<html><head><title>Weekly releases</title></head><body><nav>Home | Blog</nav>"
        "<article><h1>Why we release every week</h1>"
        + "".join(f"<p>{text}</p>" for text in paragraphs)
        + "</article><footer>© Example</footer></body></html>"
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        events = stream(
            ai_client,
            store,
            headers,
            data={"calendarLength": "7", "articleUrls": f"{base}/a, {base}/b"},
            files={"pdf": ("", b"")},  # an empty file input: multipart, no PDF
        )
    finally:
        server.shutdown()
        server.server_close()
    check_calendar_contract(events)
    processing = [e.data for e in events if e.name == "source_processing"]
    assert [(p["type"], p["status"]) for p in processing] == [
        ("article", "extracting"),
        ("article", "complete"),
        ("article", "extracting"),
        ("article", "complete"),
    ]
    assert events[-1].data["summary"]["generated"] == 7
    plan_request = scripted_ai.model.calls_for("calendar_themes")[0]
    assert "release every week" in plan_request.prompt  # grounded in the article


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"prompt": "x"}, "calendarLength must be 7 or 30"),
        ({"calendarLength": 14, "prompt": "x"}, "calendarLength must be 7 or 30"),
        ({"calendarLength": "seven", "prompt": "x"}, "calendarLength must be 7 or 30"),
        ({"calendarLength": 7}, "Give at least one source: prompt, youtubeUrl, articleUrls or pdf"),
        ({"calendarLength": 7, "articleUrls": "ftp://example.com/a"}, "http"),
        ({"calendarLength": 7, "youtubeUrl": "http://127.0.0.1/video"}, "not allowed"),
        ({"calendarLength": 7, "articleUrls": ["http://10.0.0.1/a"]}, "not allowed"),
        ({"calendarLength": 7, "prompt": "x", "contentStyleId": "nope"}, "Content style not found"),
        ({"calendarLength": 7, "articleUrls": 5}, "articleUrls must be"),
    ],
)
def test_bad_requests_are_refused_before_any_generation(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
    monkeypatch: pytest.MonkeyPatch,
    body: dict[str, Any],
    message: str,
) -> None:
    monkeypatch.delenv("SOCIALGEN_ALLOW_PRIVATE_URLS", raising=False)
    response = ai_client.post(f"{URL}/{store.workspace_id}", headers=headers, json=body)
    assert response.status_code in (400, 404), response.text
    assert message in response.json()["message"]
    assert scripted_ai.calls == []
    assert count(store, Post) == 0
    assert used(store) == 0


def test_pdf_uploads_are_checked(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    not_pdf = ai_client.post(
        f"{URL}/{store.workspace_id}",
        headers=headers,
        data={"calendarLength": "7"},
        files={"pdf": ("notes.pdf", b"just text, not a pdf", "application/pdf")},
    )
    assert (not_pdf.status_code, not_pdf.json()["message"]) == (400, "The file is not a PDF")
    too_big = ai_client.post(
        f"{URL}/{store.workspace_id}",
        headers=headers,
        data={"calendarLength": "7"},
        files={
            "pdf": ("big.pdf", b"%PDF-1.4\n" + b"0" * (10 * 1024 * 1024 + 1), "application/pdf")
        },
    )
    assert too_big.status_code == 400
    assert "larger than 10 MB" in too_big.json()["message"]
    assert scripted_ai.calls == []


def test_a_pdf_is_a_source(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    from fpdf import FPDF

    document = FPDF()
    document.set_title("Release handbook")
    for page in range(3):
        document.add_page()
        document.set_font("Helvetica", size=12)
        document.multi_cell(
            0, 8, f"Page {page + 1}. Small batches make releases boring, which is the point. " * 5
        )
    data = bytes(document.output())
    events = stream(
        ai_client,
        store,
        headers,
        data={"calendarLength": "7", "prompt": "releases"},
        files={"pdf": ("handbook.pdf", data, "application/pdf")},
    )
    check_calendar_contract(events)
    assert {"type": "pdf", "title": "Release handbook"} in events[0].data["sources"]
    assert [e.data["status"] for e in events if e.name == "source_processing"] == [
        "extracting",
        "complete",
    ]
    assert events[-1].data["summary"]["generated"] == 7


def test_a_source_that_fails_mid_run_is_the_error_event(
    allow_private_urls: None,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
) -> None:
    events = stream(
        ai_client,
        store,
        headers,
        json={"calendarLength": 7, "articleUrls": ["http://127.0.0.1:9/gone"]},
    )
    check_calendar_contract(events)
    assert events[-1].name == "error"
    assert events[-1].data["message"].startswith("failed to generate content calendar: ")
    assert count(store, Post) == 0
    assert used(store) == 0


def test_failed_days_are_counted_and_refunded(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda call: (
        ModelError("the provider failed") if "Idea 3\n" in call.prompt else "Fine post."
    )
    events = stream(ai_client, store, headers, json={"calendarLength": 7, "prompt": "x"})
    complete = events[-1].data
    assert complete["summary"] == {"total": 7, "generated": 6, "failed": 1}
    assert [p["index"] for p in complete["posts"]] == [1, 2, 4, 5, 6, 7]
    failed = [
        e.data for e in events if e.name == "calendar_progress" and e.data["status"] == "failed"
    ]
    assert [f["current"] for f in failed] == [3]
    assert count(store, Post) == 6
    assert used(store) == 6


def test_quota_short_for_the_calendar_is_refused(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 20)
    response = ai_client.post(
        f"{URL}/{store.workspace_id}", headers=headers, json={"calendarLength": 30, "prompt": "x"}
    )
    assert response.status_code == 403
    assert response.json()["message"] == "Post quota exceeded: 30 requested, 20 left of 20"
    assert scripted_ai.calls == []


def test_themes_fall_back_when_the_model_gives_no_plan(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    original = scripted_ai.respond

    def no_plan(call: ScriptedCall) -> Reply:
        if call.purpose == "calendar_themes":
            # JSON plans that are not JSON, and an empty line list.
            return "not json at all" if call.schema_name else ""
        return original(call)

    scripted_ai.model.responder = no_plan
    events = stream(ai_client, store, headers, json={"calendarLength": 30, "prompt": "remote work"})
    posts = events[-1].data["posts"]
    assert len(posts) == 30
    assert len({p["theme"] for p in posts}) == 30
    assert posts[0]["theme"] == "A lesson learned"  # the classic formats stand in


def test_junk_themes_from_the_model_are_replaced(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    def junk_plan(call: ScriptedCall) -> Reply:
        if call.purpose == "calendar_themes":
            if not call.schema_name:
                return ""  # the line list of a top-up: nothing more
            junk = [
                {"theme": "<blog/123 #tech", "angle": "x"},
                {"theme": "Real theme", "angle": "ok"},
            ]
            return {"posts": junk}
        return scripted_ai.respond(call)

    scripted_ai.model.responder = junk_plan
    events = stream(ai_client, store, headers, json={"calendarLength": 7, "prompt": "remote work"})
    themes = [p["theme"] for p in events[-1].data["posts"]]
    assert themes[0] == "Real theme"
    assert not any("<" in theme or "#" in theme for theme in themes)
    assert len(set(themes)) == 7
