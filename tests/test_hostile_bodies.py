"""Issue 19: one request cannot stall the server.

Over a real socket, against `socialgen serve` in a process of its own (its memory is
read from /proc): each hostile body of the security review gets its 4xx before more
than the sockets' buffers of it went out (the 64 MB form is read whole), a small
request on another connection is answered meanwhile at about its usual pace (a
ratio), and the server grows by less than 200 MB. Their seconds are in
bench/hostile_bodies.py. Before the fix the first
case took 9.1 s with the small request waiting 8.8 s, and the 29 MB form 103.9 s.

The rest runs in-process: every route with a body declares its cap, the
content-type rule, the order of the checks (key and quota before the body), and a
413 raised while FastAPI reads a body model comes out as the 413.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi.testclient import TestClient

from socialgen.app.runtime import Runtime
from socialgen.http.request_body import body_limits
from socialgen.kit.limits import (
    CALENDAR_BODY,
    CAROUSEL_BODY,
    JSON_BODY,
    MAX_FORM_PARTS,
    PDF_BODY,
    REGENERATE_SLIDE_BODY,
)
from tests.conftest import Store
from tests.hostile_support import MB, Case, issue_cases, measure

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the server's memory is read from /proc"
)
AI = "/api/v1/ai-conversation"
CAROUSEL = "/api/v1/carousel/generate-with-images"
CALENDAR = "/api/v1/content-calendar/generate"


@dataclass(frozen=True)
class Served:
    port: int
    pid: int
    workspace_id: str
    key: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`socialgen serve` on its own SQLite store, with a key bound to its workspace."""
    from socialgen.auth.service import create_api_key
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import default_workspace

    home = tmp_path_factory.mktemp("hostile") / "home"
    env = {**os.environ, "SOCIALGEN_HOME": str(home), "SOCIALGEN_SCHEDULER": "0"}
    env.pop("SOCIALGEN_DATABASE_URL", None)
    env.pop("SOCIALGEN_WORKSPACE", None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOCIALGEN_HOME", str(home))
        patch.delenv("SOCIALGEN_DATABASE_URL", raising=False)
        runtime = Runtime()
        with transaction(runtime.open_store()) as session:
            workspace = default_workspace(session)
            assert workspace is not None
            workspace_id = workspace.id
            key = create_api_key(session, name="hostile", workspace_id=workspace_id)[1]
        runtime.close()
    port = _free_port()
    command = [sys.executable, "-m", "socialgen", "serve", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_until_up(port, process)
        yield Served(port, process.pid, workspace_id, key)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/v1/carousel/templates", timeout=2)
            return
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve did not start: {process.stderr!r}") from None
            time.sleep(0.1)


CASE_NAMES = [case.hostile.name for case in issue_cases("ws", "key")]


@pytest.mark.parametrize("index", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_a_hostile_body_is_refused_fast_without_stalling_anyone(served: Served, index: int) -> None:
    case: Case = issue_cases(served.workspace_id, served.key)[index]
    figures = measure(served.port, served.pid, case.hostile)

    assert (figures.status, case.message in figures.message) == (case.status, True), figures
    if case.read_mb is not None:  # refused without reading the body through
        assert figures.sent_mb < case.read_mb, figures
    assert figures.small_count >= 1
    # Not stalled: the other connection is served at about its usual pace (the review
    # saw it wait 8.8 s, some 900 times its usual 10 ms); a ratio, not seconds, so
    # a busy machine slows both sides alike.
    assert figures.small_max_s < 50 * figures.small_usual_s, figures
    assert figures.rss_growth_mb < 200, figures


def test_the_server_still_works_after_them(served: Served) -> None:
    headers = {"x-api-key": served.key}
    url = f"http://127.0.0.1:{served.port}/api/v1/content-styles/{served.workspace_id}"
    created = httpx.post(url, json={"name": "After the storm"}, headers=headers, timeout=10)
    assert created.status_code == 201, created.text


# In-process: the contract the gate keeps.


def test_every_route_with_a_body_declares_its_cap(client: TestClient) -> None:
    """Every documented operation that takes a body declares its cap on its route
    (`request_body.body_cap`), and only those do; the four that take more than JSON
    declare SPEC.md's."""
    paths = client.get("/openapi.json").json()["paths"]
    body_routes = {
        (method.upper(), path)
        for path, operations in paths.items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }
    declared = {route: cap for route, cap in body_limits(client.app).items() if cap is not None}
    assert body_routes - set(declared) == set(), "declare a cap on these: body_cap(...)"
    assert set(declared) - body_routes == set(), "these take no body"
    assert {route: cap for route, cap in declared.items() if cap != JSON_BODY} == {
        ("POST", "/api/v1/content-calendar/generate/{workspaceId}"): CALENDAR_BODY,
        ("POST", "/api/v1/carousel/generate-with-images/{workspaceId}"): CAROUSEL_BODY,
        ("POST", "/api/v1/carousel/regenerate-slide/{workspaceId}"): REGENERATE_SLIDE_BODY,
        ("POST", "/api/v1/carousel/generate-pdf"): PDF_BODY,
    }


@pytest.mark.parametrize(
    ("path", "content_type", "wanted"),
    [
        (f"{AI}/chat/{{ws}}", "text/plain", "application/json"),
        (f"{AI}/generate-post/{{ws}}", "application/x-www-form-urlencoded", "application/json"),
        (f"{AI}/chat/{{ws}}", "multipart/form-data; boundary=x", "application/json"),
        (f"{CAROUSEL}/{{ws}}", "text/plain", "application/json, or multipart/form-data"),
        (f"{CALENDAR}/{{ws}}", "application/xml", "application/json, or multipart/form-data"),
    ],
)
def test_one_content_type_rule(
    client: TestClient, store: Store, path: str, content_type: str, wanted: str
) -> None:
    response = client.post(
        path.format(ws=store.workspace_id),
        content=b'{"userInput": "hi"}',
        headers={"x-api-key": store.api_key(), "content-type": content_type},
    )
    assert response.status_code == 415
    message = response.json()["message"]
    media = content_type.split(";")[0]
    assert message == f"Unsupported Content-Type `{media}`: send the body as {wanted}" or (
        message.startswith(f"Unsupported Content-Type `{media}`") and wanted in message
    )


def test_json_without_a_content_type_is_read_as_json(client: TestClient, store: Store) -> None:
    post = store.post("before")
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    url = f"{AI}/post/{store.workspace_id}/{post.id}"
    request = client.build_request("PUT", url, content=b'{"content": "after"}', headers=headers)
    assert "content-type" not in request.headers
    response = client.send(request)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["content"] == "after"


def test_the_key_is_checked_before_the_body(client: TestClient, store: Store) -> None:
    """Malformed JSON, a wrong content type and an oversized length all lose to the key."""
    url = f"{AI}/generate-batch-posts/{store.workspace_id}"
    for body, content_type in [(b"{not json", "application/json"), (b"x", "text/plain")]:
        response = client.post(url, content=body, headers={"content-type": content_type})
        # generate-batch-posts answers a bad key with 400 (SPEC.md), the others 401.
        assert response.json()["message"].startswith("API key required"), response.text
        assert response.status_code == 400
    response = client.post(
        f"{AI}/chat/{store.workspace_id}",
        content=b"[" + b"1," * (300 * 1024) + b"1]",
        headers={"content-type": "application/json", "x-api-key": "sgk_wrong"},
    )
    assert (response.status_code, response.json()["message"]) == (401, "Invalid API key")


def test_a_streamed_body_over_the_cap_is_a_413_not_a_parse_error(
    client: TestClient, store: Store
) -> None:
    """No Content-Length: the gate counts the bytes as FastAPI reads the body model."""

    def chunks() -> Iterator[bytes]:
        yield b'{"userInput": "'
        for _ in range(300):
            yield b"x" * 1024
        yield b'"}'

    response = client.post(
        f"{AI}/generate-post/{store.workspace_id}",
        content=chunks(),
        headers={"content-type": "application/json", "x-api-key": store.api_key()},
    )
    assert response.status_code == 413
    assert response.json()["message"] == "The JSON body is larger than 256 KB"


def test_no_quota_left_is_refused_before_the_body(client: TestClient, store: Store) -> None:
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import set_post_quota

    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 3)
    headers = {"x-api-key": store.api_key(), "content-type": "multipart/form-data; boundary=b"}
    garbage = b"not a form at all"  # parsing it would answer 400 "Malformed ..."
    carousel = client.post(f"{CAROUSEL}/{store.workspace_id}", content=garbage, headers=headers)
    assert carousel.status_code == 400  # 3 left: the carousel's one post fits
    calendar = client.post(f"{CALENDAR}/{store.workspace_id}", content=garbage, headers=headers)
    assert (calendar.status_code, calendar.json()["message"]) == (
        403,
        "Post quota exceeded: at least 7 requested, 3 left of 3",
    )
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 0)
    carousel = client.post(f"{CAROUSEL}/{store.workspace_id}", content=garbage, headers=headers)
    assert (carousel.status_code, carousel.json()["message"]) == (
        403,
        "Post quota exceeded: 1 requested, 0 left of 0",
    )


def test_a_form_is_judged_part_by_part(client: TestClient, store: Store) -> None:
    url = f"{CAROUSEL}/{store.workspace_id}"
    headers = {"x-api-key": store.api_key()}
    unknown = client.post(url, headers=headers, files={"prompt": (None, b"x"), "evil": (None, b"")})
    assert unknown.status_code == 400
    assert unknown.json()["message"].startswith("The form field `evil` is not one this endpoint")
    many = [("referenceImages", ("", b"")) for _ in range(MAX_FORM_PARTS + 1)]
    too_many = client.post(url, headers=headers, files=many)
    assert (too_many.status_code, too_many.json()["message"]) == (
        413,
        f"The form has more than {MAX_FORM_PARTS} parts",
    )
    big = client.post(
        url,
        headers=headers,
        data={"prompt": "x"},
        files=[("referenceImages", ("a.png", b"\x00" * (8 * MB + 1), "image/png"))],
    )
    assert (big.status_code, big.json()["message"]) == (
        413,
        "referenceImages[0] is larger than 8 MB",
    )


def test_deep_json_never_names_a_python_exception(client: TestClient, store: Store) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    headers = {"x-api-key": store.api_key(), "content-type": "application/json"}
    for path in (f"{AI}/chat/{store.workspace_id}", f"{CALENDAR}/{store.workspace_id}"):
        response = client.post(path, content=deep, headers=headers)
        message = response.json()["message"]
        assert response.status_code == 400, message
        assert "Recursion" not in message and "Error" not in message, message
        assert message == "Malformed JSON body: it is nested too deeply"


def test_a_body_over_the_cap_in_its_content_length_is_refused_at_once(served: Served) -> None:
    """The review's 100 MB string: refused on its headers, before a byte of it is sent."""
    from tests.hostile_support import JSON_TYPE, Hostile, send_hostile

    hostile = Hostile(
        "declared 100 MB, sends nothing",
        "POST",
        f"{AI}/chat/{served.workspace_id}",
        {**JSON_TYPE, "x-api-key": served.key},
        iter([b""]),
        100 * MB,
    )
    # Nothing of the body is sent: a server that waited for it would time out (status 0).
    status, body, _seconds, _ = send_hostile(served.port, hostile, timeout=5)
    assert status == 413 and "256 KB" in body
