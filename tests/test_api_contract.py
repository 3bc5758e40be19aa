"""The OpenAPI document and the server agree: what the document allows is accepted,
what it forbids is refused (400, SPEC.md's error body), numbers are never read from
strings in JSON, and a 405 names every method of its path.

Each case is checked twice: against the request schema /openapi.json publishes
(JSON Schema 2020-12, as OpenAPI 3.1 says) and against the server. The schemathesis
run (tests/contract/run_schemathesis.py) explores the same ground at random; these
are the cases it found, kept as plain tests.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from tests.conftest import Store

ABSENT = object()  # no body at all


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def body_schema_accepts(
    client: TestClient, method: str, path: str, body: Any, media: str = "application/json"
) -> bool:
    document = client.get("/openapi.json").json()
    request_body = document["paths"][path][method]["requestBody"]
    if body is ABSENT:
        return not request_body.get("required", False)
    schema = {**request_body["content"][media]["schema"], "components": document["components"]}
    return Draft202012Validator(schema).is_valid(body)


def send(
    client: TestClient, method: str, path: str, body: Any, headers: dict[str, str], **ids: str
) -> Any:
    url = path.format(**ids)
    if body is ABSENT:
        return client.request(method.upper(), url, headers=headers)
    # json.dumps, not json=: httpx sends no body at all for json=None.
    return client.request(
        method.upper(),
        url,
        headers={**headers, "Content-Type": "application/json"},
        content=json.dumps(body),
    )


PUT_POST = "/api/v1/ai-conversation/post/{workspaceId}/{postId}"
STYLES = "/api/v1/content-styles/{workspaceId}"
STYLE = "/api/v1/content-styles/{workspaceId}/{styleId}"
STYLE_POSTS = "/api/v1/content-styles/{workspaceId}/{styleId}/posts"
PDF = "/api/v1/carousel/generate-pdf"
REGENERATE = "/api/v1/carousel/regenerate-slide/{workspaceId}"
CALENDAR = "/api/v1/content-calendar/generate/{workspaceId}"
CHAT = "/api/v1/ai-conversation/chat/{workspaceId}"
CAROUSEL = "/api/v1/carousel/generate-with-images/{workspaceId}"
NO_SOURCE = "Give at least one source: prompt, youtubeUrl, articleUrls or pdf"

# (method, path, body, the message of the 400 the server answers)
REFUSED = [
    ("put", PUT_POST, {"content": None}, "Content is required"),
    ("put", PUT_POST, ABSENT, "Content is required"),
    ("put", PUT_POST, {"content": " \t\u2003\u3000"}, "Content is required"),  # blank
    ("put", PUT_POST, {"content": 5}, "Invalid content: Input should be a valid string"),
    ("put", PUT_POST, None, "The request body must be a JSON object"),
    ("post", STYLES, {"name": None}, "Content style name is required"),
    ("post", STYLES, ABSENT, "Content style name is required"),
    ("put", STYLE, None, "The request body must be a JSON object"),
    ("put", STYLE, ABSENT, "The request body must be a JSON object"),
    ("put", STYLE, {"name": "  "}, "Content style name is required"),
    ("post", STYLE_POSTS, {"posts": None}, "posts must be a non-empty array of strings"),
    ("post", STYLE_POSTS, {"posts": []}, "posts must be a non-empty array of strings"),
    ("post", PDF, {"slidesHtml": []}, "slidesHtml must be a non-empty list of HTML strings"),
    ("post", PDF, {"slidesHtml": ["<p>x</p>"], "width": "1080"}, "width must be an integer"),
    ("post", PDF, {"slidesHtml": ["<p>x</p>"], "height": None}, "height must be an integer"),
    (
        "post",
        REGENERATE,
        {"carouselId": "c1", "slideIndex": "0", "prompt": "a lighthouse"},
        "slideIndex must be an integer",
    ),
    (
        "post",
        REGENERATE,
        {"carouselId": " ", "slideIndex": 0, "prompt": "a lighthouse"},
        "carouselId is required",
    ),
    (
        "post",
        CALENDAR,
        {"calendarLength": "7", "prompt": "why small teams ship"},
        "calendarLength must be 7 or 30",
    ),
    (
        "post",
        CALENDAR,
        {"calendarLength": 7},
        "Give at least one source: prompt, youtubeUrl, articleUrls or pdf",
    ),
    # Sources given blank (articleUrls: no URL in the text, none in the array) are none:
    # the document says so with its anyOf of given sources (content_calendar/body.py).
    *(
        ("post", CALENDAR, {"calendarLength": 7, **sources}, NO_SOURCE)
        for sources in (
            {"prompt": " ", "youtubeUrl": ""},
            {"articleUrls": " , "},
            {"articleUrls": ["", " ,"]},
        )
    ),
    ("post", CHAT, ABSENT, "userInput is required"),
    ("post", CHAT, {"userInput": None}, "userInput is required"),
    ("post", CHAT, None, "The request body must be a JSON object"),
    ("post", CAROUSEL, {"prompt": "x", "slideCount": "4"}, "slideCount must be an integer"),
]


@pytest.mark.parametrize(("method", "path", "body", "message"), REFUSED)
def test_what_the_document_forbids_is_refused(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    method: str,
    path: str,
    body: Any,
    message: str,
) -> None:
    assert not body_schema_accepts(client, method, path, body)
    post = store.post("A draft to edit")
    style = client.post(
        f"/api/v1/content-styles/{store.workspace_id}", json={"name": "S"}, headers=headers
    )
    ids = {
        "workspaceId": store.workspace_id,
        "postId": post.id,
        "styleId": style.json()["data"]["_id"],
    }

    response = send(client, method, path, body, headers, **ids)

    assert response.status_code == 400
    assert response.json() == {"success": False, "message": message}


# Bodies the document allows, and the server's answer (2xx; 404 for an unknown carousel).
ACCEPTED = [
    ("put", PUT_POST, {"content": "  New text  "}, 200),
    ("put", STYLE, {}, 200),
    ("put", STYLE, {"name": None, "description": None}, 200),
    ("post", STYLES, {"name": "Founder", "description": None}, 201),
    ("post", STYLE_POSTS, {"posts": ["One example", "Two"]}, 201),
    ("post", REGENERATE, {"carouselId": "nope", "slideIndex": 0, "prompt": "x"}, 404),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), ACCEPTED)
def test_what_the_document_allows_is_accepted(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    method: str,
    path: str,
    body: Any,
    status: int,
) -> None:
    assert body_schema_accepts(client, method, path, body)
    post = store.post("A draft to edit")
    style = client.post(
        f"/api/v1/content-styles/{store.workspace_id}", json={"name": "S"}, headers=headers
    )
    ids = {
        "workspaceId": store.workspace_id,
        "postId": post.id,
        "styleId": style.json()["data"]["_id"],
    }

    response = send(client, method, path, body, headers, **ids)

    assert response.status_code == status, response.text


def test_blank_optional_fields_are_documented_as_not_given(client: TestClient) -> None:
    """The server reads a blank userProfileImage (or youtubeUrl) as absent: the document
    must allow it rather than demand a URL."""
    assert body_schema_accepts(client, "post", CAROUSEL, {"prompt": "x", "userProfileImage": ""})
    assert body_schema_accepts(
        client, "post", CALENDAR, {"calendarLength": 30, "prompt": "x", "youtubeUrl": " "}
    )
    # Blank parts of articleUrls are dropped: one URL among them is a source.
    assert body_schema_accepts(
        client, "post", CALENDAR, {"calendarLength": 7, "articleUrls": ["", "https://a.example"]}
    )
    assert body_schema_accepts(
        client, "post", CALENDAR, {"calendarLength": 7, "articleUrls": " ,https://a.example"}
    )
    assert not body_schema_accepts(client, "post", CAROUSEL, {"prompt": "x", "template": "neon"})


def test_form_fields_still_give_numbers_as_digits(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    """Only JSON numbers are strict: a multipart form has nothing but text."""
    response = client.post(
        REGENERATE.format(workspaceId=store.workspace_id),
        headers=headers,
        data={"carouselId": "nope", "slideIndex": "0", "prompt": "a lighthouse"},
        # An empty file input makes it multipart (a form field this endpoint takes: an
        # unknown one is refused when its headers arrive).
        files={"referenceImages": ("", b"")},
    )
    assert response.status_code == 404
    assert response.json()["message"] == "Carousel not found"


@pytest.mark.parametrize(
    ("path", "method", "allow"),
    [
        ("/api/v1/content-styles/{ws}/s1", "OPTIONS", "DELETE, GET, PUT"),
        ("/api/v1/content-styles/{ws}", "PATCH", "GET, POST"),
        ("/api/v1/ai-conversation/post/{ws}/p1", "POST", "DELETE, PUT"),
        ("/api/v1/carousel/templates", "DELETE", "GET"),
        # Also fits PUT and DELETE /{workspaceId}/{styleId}, but those are not its methods.
        ("/api/v1/content-styles/{ws}/get-posts-from-social-profile", "OPTIONS", "GET"),
    ],
)
def test_405_names_every_method_of_the_path(
    client: TestClient, store: Store, headers: dict[str, str], path: str, method: str, allow: str
) -> None:
    response = client.request(method, path.format(ws=store.workspace_id), headers=headers)
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    assert response.json() == {"success": False, "message": "Method Not Allowed"}
