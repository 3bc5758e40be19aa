"""Whole numbers past their range are refused with a 400 (API) or a clear CLI error,
never a 500 or "Unexpected error" from the database underneath.

Unbounded, `page=461168601842738792` made (page - 1) * limit overflow SQLite's 64-bit
OFFSET (OverflowError, a 500), and a quota of 10**20 overflowed its column. The
bounds live in socialgen.kit.limits; both faces are checked here against them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.limits import (
    MAX_PAGE,
    MAX_PAGE_LIMIT,
    MAX_POST_QUOTA,
    MAX_SLIDE_SIDE,
    MAX_TOKEN_DAYS,
    PAGE,
    POST_QUOTA,
    SLIDE_INDEX,
)
from socialgen.store.tables import AccessToken, Conversation, Post
from tests.carousel_support import CREATE_URL, PDF_URL, REGENERATE_URL, create
from tests.conftest import Store

HUGE = "99999999999999999999999"  # past any 64-bit integer
OVERFLOWING_PAGE = "461168601842738792"  # (page - 1) * 20 > 2**63: SQLite's OverflowError
LIST_URL = "/api/v1/ai-conversation/list"
CALENDAR_URL = "/api/v1/content-calendar/generate"

runner = CliRunner()


@pytest.fixture
def owner(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def refused(response: Any, message: str | None = None) -> str:
    """A 400 in the API's error shape; returns its message."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert set(body) == {"success", "message"} and body["success"] is False, body
    if message is not None:
        assert body["message"] == message
    return str(body["message"])


def rows(store: Store, model: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(model)))


# --------------------------------------------------------------------------- the API


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"page": OVERFLOWING_PAGE}, f"page must be at most {MAX_PAGE}"),
        ({"page": HUGE}, f"page must be at most {MAX_PAGE}"),
        ({"page": str(MAX_PAGE + 1)}, f"page must be at most {MAX_PAGE}"),
        ({"page": OVERFLOWING_PAGE, "limit": "100"}, f"page must be at most {MAX_PAGE}"),
        ({"limit": HUGE}, f"limit must be at most {MAX_PAGE_LIMIT}"),
        ({"page": "-" + HUGE}, "page must be a positive integer"),
    ],
)
def test_conversation_pages_past_the_range_are_a_400(
    client: TestClient, store: Store, owner: dict[str, str], params: dict[str, str], message: str
) -> None:
    store.post("Something to list")
    response = client.get(f"{LIST_URL}/{store.workspace_id}", headers=owner, params=params)
    refused(response, message)


def test_the_last_page_in_range_answers_an_empty_page(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    store.post("Something to list")
    url = f"{LIST_URL}/{store.workspace_id}"
    response = client.get(url, headers=owner, params={"page": MAX_PAGE, "limit": MAX_PAGE_LIMIT})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["conversations"] == []


def test_a_page_number_too_long_to_parse_is_a_400(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    response = client.get(
        f"{LIST_URL}/{store.workspace_id}", headers=owner, params={"page": "9" * 5000}
    )
    assert "page" in refused(response)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (f'{{"slidesHtml": ["<p>x</p>"], "width": {HUGE}}}', "width must be between 1 and"),
        (f'{{"slidesHtml": ["<p>x</p>"], "height": {HUGE}}}', "height must be between 1 and"),
        ('{"slidesHtml": ["<p>x</p>"], "width": 1e300}', "width must be between 1 and"),
        ('{"slidesHtml": ["<p>x</p>"], "width": 1e400}', "width must be an integer"),
        ('{"slidesHtml": ["<p>x</p>"], "height": -1}', "height must be between 1 and"),
        (f'{{"slidesHtml": ["<p>x</p>"], "width": {MAX_SLIDE_SIDE + 1}}}', "width must be"),
    ],
)
def test_generate_pdf_sizes_past_the_range_are_a_400(
    client: TestClient, store: Store, raw: str, message: str
) -> None:
    headers = {"x-api-key": store.api_key(), "Content-Type": "application/json"}
    response = client.post(PDF_URL, headers=headers, content=raw)
    assert message in refused(response)


@pytest.mark.parametrize(
    "raw",
    [
        f'{{"calendarLength": {HUGE}, "prompt": "x"}}',
        '{"calendarLength": 1e400, "prompt": "x"}',  # infinity: int() raises OverflowError
        '{"calendarLength": -1e400, "prompt": "x"}',
        '{"calendarLength": NaN, "prompt": "x"}',
    ],
)
def test_calendar_lengths_past_the_range_are_a_400(
    scripted_client: TestClient, store: Store, raw: str
) -> None:
    headers = {"x-api-key": store.api_key(), "Content-Type": "application/json"}
    response = scripted_client.post(
        f"{CALENDAR_URL}/{store.workspace_id}", headers=headers, content=raw
    )
    refused(response, "calendarLength must be 7 or 30")
    assert rows(store, Post) == 0


def test_slide_counts_and_indexes_past_the_range_are_a_400(
    scripted_client: TestClient, store: Store
) -> None:
    headers = {"x-api-key": store.api_key()}
    json_headers = {**headers, "Content-Type": "application/json"}
    url = f"{CREATE_URL}/{store.workspace_id}"
    for count in (HUGE, "1e300", "-" + HUGE):
        raw = f'{{"prompt": "shipping", "slideCount": {count}}}'
        response = scripted_client.post(url, headers=json_headers, content=raw)
        refused(response, "slideCount must be between 2 and 12")
    assert rows(store, Post) == 0

    events = create(scripted_client, store, headers, json={"prompt": "shipping", "slideCount": 2})
    carousel_id = events[-1].data["data"]["carouselId"]
    regenerate = f"{REGENERATE_URL}/{store.workspace_id}"
    for index in (HUGE, "1e300", str(SLIDE_INDEX.high + 1)):
        raw = f'{{"carouselId": "{carousel_id}", "slideIndex": {index}, "prompt": "a lighthouse"}}'
        response = scripted_client.post(regenerate, headers=json_headers, content=raw)
        assert "out of range" in refused(response)
    response = scripted_client.post(
        regenerate,
        headers=headers,
        files={  # multipart form fields: the index comes as text
            "carouselId": (None, carousel_id),
            "slideIndex": (None, HUGE),
            "prompt": (None, "a lighthouse"),
        },
    )
    assert "slideIndex" in refused(response)


# --------------------------------------------------------------------------- the CLI


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def cli_refused(result: Result, message: str, *, as_json: bool) -> None:
    """Exit 1 with the message (as JSON on stdout under --json), never a traceback."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "Unexpected error" not in result.output
    if as_json:
        assert result.stderr == ""
        assert json.loads(result.stdout) == {"success": False, "message": message}
    else:
        assert result.stdout == ""
        assert result.stderr.strip() == f"Error: {message}"


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["conversations", "--page", HUGE], f"page must be at most {MAX_PAGE}"),
        (["conversations", "--page", OVERFLOWING_PAGE], f"page must be at most {MAX_PAGE}"),
        (["conversations", "--page", str(PAGE.high + 1)], f"page must be at most {MAX_PAGE}"),
        (["conversations", "--limit", HUGE], f"limit must be at most {MAX_PAGE_LIMIT}"),
        (["conversations", "--page", "-" + HUGE], "page must be a positive integer"),
        (
            ["token", "create", "ada@example.com", "--days", HUGE],
            f"Token lifetime must be between 1 and {MAX_TOKEN_DAYS} days",
        ),
        (
            ["workspace", "quota", "Personal", HUGE],
            f"The post quota must be at most {MAX_POST_QUOTA}",
        ),
        # The CLI names its own option or argument, not the API's field (cli_words.py).
        (["calendar", HUGE, "--prompt", "shipping"], "DAYS must be 7 or 30"),
        (
            ["carousel", "create", "shipping", "--slides", HUGE],
            "--slides must be between 2 and 12",
        ),
        (
            ["carousel", "regenerate-slide", "some-id", HUGE, "a lighthouse"],
            f"INDEX must be at most {SLIDE_INDEX.high}",
        ),
        (
            ["carousel", "regenerate-slide", "some-id", "9" * 5000, "a lighthouse"],
            f"INDEX must be at most {SLIDE_INDEX.high}",
        ),
    ],
)
def test_cli_numbers_past_the_range_are_a_clear_error(
    store: Store, args: list[str], message: str, json_flag: list[str]
) -> None:
    store.post("Something to list")
    before = (rows(store, Post), rows(store, Conversation), rows(store, AccessToken))
    result = run(*args, *json_flag)
    cli_refused(result, message, as_json=bool(json_flag))
    assert (rows(store, Post), rows(store, Conversation), rows(store, AccessToken)) == before


@pytest.mark.parametrize("side", ["--width", "--height"])
@pytest.mark.parametrize("value", [HUGE, str(MAX_SLIDE_SIDE + 1), "0"])
def test_cli_pdf_sizes_past_the_range_are_a_clear_error(
    store: Store, tmp_path: Any, side: str, value: str
) -> None:
    page = tmp_path / "slide.html"
    page.write_text("<h1>Slide</h1>")
    out = tmp_path / "out.pdf"
    result = run("carousel", "pdf", str(page), "-o", str(out), side, value, "--json")
    assert result.exit_code == 1, result.output
    message = json.loads(result.stdout)["message"]
    assert message.startswith(f"{side[2:]} must be between 1 and {MAX_SLIDE_SIDE} pixels")
    assert not out.exists()


def test_the_largest_quota_in_range_is_stored(store: Store) -> None:
    result = run("workspace", "quota", "Personal", str(POST_QUOTA.high), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["postQuota"] == MAX_POST_QUOTA


def test_the_last_page_in_range_lists_nothing(store: Store) -> None:
    store.post("Something to list")
    result = run("conversations", "--page", str(MAX_PAGE), "--limit", str(MAX_PAGE_LIMIT), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["conversations"] == []
