"""The OAuth loopback redirect over a real socket: a simulated browser (httpx) follows
the authorization URL's redirect to 127.0.0.1 the way a real one would."""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import threading
import time
from collections.abc import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import Authorization, LoopbackRedirect, authorize_in_browser

AUTH_SERVER = "https://auth.example"
pages: list[tuple[int, str]] = []  # (status, body) of each page the browser was shown


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server lives on 127.0.0.1, and the SSRF guard checks every request the
    adapter sends (guarded_http.py): let it through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


def build_url(redirect_uri: str, state: str, challenge: str) -> str:
    """What a service's authorization URL carries; the fake browser reads it back."""
    query = {"redirect_uri": redirect_uri, "state": state, "code_challenge": challenge}
    return f"{AUTH_SERVER}/authorize?{urlencode(query)}"


def browse(announced: list[str], respond: Callable[[dict[str, str]], list[dict[str, str]]]) -> None:
    """The user's browser: waits for the announced link, then calls the redirect URI
    with each query the 'authorization server' decides on; the pages go to `pages`."""
    deadline = time.monotonic() + 5
    while not announced and time.monotonic() < deadline:
        time.sleep(0.01)
    match = re.search(r"https?://\S+", announced[0])
    assert match
    params = {key: values[0] for key, values in parse_qs(urlsplit(match.group()).query).items()}
    for query in respond(params):
        response = httpx.get(params["redirect_uri"], params=query, timeout=5)
        pages.append((response.status_code, response.text))


def run(
    respond: Callable[[dict[str, str]], list[dict[str, str]]], timeout: float = 5.0, **kwargs: int
) -> Authorization:
    pages.clear()
    announced: list[str] = []
    browser = threading.Thread(target=browse, args=(announced, respond), daemon=True)
    browser.start()
    try:
        return authorize_in_browser(
            build_url,
            open_browser=False,
            announce=announced.append,
            timeout=timeout,
            **kwargs,
        )
    finally:
        browser.join(timeout=5)


def test_the_code_comes_back_with_its_verifier() -> None:
    seen: dict[str, str] = {}

    def approve(params: dict[str, str]) -> list[dict[str, str]]:
        seen.update(params)
        return [{"code": "the-code", "state": params["state"]}]

    result = run(approve)

    assert result.code == "the-code"
    assert result.redirect_uri == seen["redirect_uri"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/callback", seen["redirect_uri"])
    # PKCE S256: the challenge the server saw is the hash of the verifier we keep.
    verifier = result.code_verifier
    digest = hashlib.sha256(verifier.encode()).digest()
    assert seen["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert 43 <= len(verifier) <= 128
    assert pages == [(200, pages[0][1])] and "You can close this tab" in pages[0][1]


def test_a_wrong_state_is_refused_and_the_real_redirect_still_counts() -> None:
    def forged_then_real(params: dict[str, str]) -> list[dict[str, str]]:
        return [{"code": "forged", "state": "not-ours"}, {"code": "real", "state": params["state"]}]

    result = run(forged_then_real)

    assert result.code == "real"
    assert pages[0][0] == 400 and "state does not match" in pages[0][1]
    assert pages[1][0] == 200


def test_only_a_wrong_state_ends_in_a_timeout_that_says_so() -> None:
    def forged(params: dict[str, str]) -> list[dict[str, str]]:
        return [{"code": "forged", "state": "not-ours"}]

    # No clock: "timed out" is the 1 s timeout's own message; without it, nothing ends.
    with pytest.raises(BadRequest) as caught:
        run(forged, timeout=1.0)

    assert "timed out" in caught.value.message
    assert "1 redirect(s) with a wrong state were refused" in caught.value.message
    assert "forged" not in caught.value.message


def test_a_denied_authorization_ends_the_wait_with_the_services_words() -> None:
    def deny(params: dict[str, str]) -> list[dict[str, str]]:
        return [
            {
                "error": "access_denied",
                "error_description": "The user refused",
                "state": params["state"],
            }
        ]

    with pytest.raises(BadRequest, match="sign-in failed: The user refused"):
        run(deny)
    assert pages[0][0] == 400


def test_no_redirect_times_out() -> None:
    with LoopbackRedirect() as redirect, pytest.raises(BadRequest, match="timed out"):
        redirect.wait("some-state", timeout=0.3)


def test_other_paths_are_not_the_callback() -> None:
    with LoopbackRedirect() as redirect:
        base = redirect.redirect_uri.removesuffix("/callback")

        def favicon() -> None:
            pages.append((httpx.get(f"{base}/favicon.ico", timeout=5).status_code, ""))
            state_page = httpx.get(redirect.redirect_uri, params={"state": "s", "code": "c"})
            pages.append((state_page.status_code, state_page.text))

        pages.clear()
        browser = threading.Thread(target=favicon, daemon=True)
        browser.start()
        assert redirect.wait("s", timeout=5) == "c"
        browser.join(timeout=5)
    assert [status for status, _ in pages] == [404, 200]


def test_a_fixed_port_is_used_and_a_busy_one_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with LoopbackRedirect(port) as redirect:
        assert redirect.redirect_uri == f"http://127.0.0.1:{port}/callback"
        with pytest.raises(BadRequest, match=f"cannot listen on 127.0.0.1:{port}"):
            LoopbackRedirect(port).__enter__()
