"""MCP sessions on `serve` are capped per caller (the API key, with the token's user):
one key cannot hold the server's sessions and lock another workspace out. A real
socket, sessions opened by hand (initialize) with a small cap set through the
settings; the book itself (sessions.py) on a clock of the test's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from datetime import timedelta
from typing import Any

import anyio
import httpx
import pytest

from socialgen.app.runtime import Runtime
from socialgen.mcp_server.sessions import SessionBook
from tests.conftest import LiveServer, Store, serving
from tests.mcp_support import ACCEPT, INITIALIZE, http_session, run, structured


@contextmanager
def server_with(**options: Any) -> Iterator[LiveServer]:
    from socialgen.http.server import create_app

    runtime = Runtime(options=options)
    try:
        with serving(create_app(runtime=runtime)) as server:
            yield server
    finally:
        runtime.close()


class Client:
    """One API key speaking MCP by hand: what each session id answers."""

    def __init__(
        self, http: httpx.AsyncClient, base_url: str, key: str, token: str | None = None
    ) -> None:
        self.http = http
        self.url = f"{base_url}/mcp"
        self.key = key
        self.token = token

    def headers(self, session_id: str | None = None) -> dict[str, str]:
        found = {**ACCEPT, "x-api-key": self.key}
        if self.token is not None:
            found["authorization"] = f"Bearer {self.token}"
        if session_id is not None:
            found["mcp-session-id"] = session_id
        return found

    async def open(self) -> httpx.Response:
        """initialize, then notifications/initialized when it opened a session."""
        opened = await self.http.post(self.url, json=INITIALIZE, headers=self.headers())
        if opened.status_code == 200:
            ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            session = self.headers(opened.headers["mcp-session-id"])
            assert (await self.http.post(self.url, json=ready, headers=session)).status_code == 202
        return opened

    async def session(self) -> str:
        opened = await self.open()
        assert opened.status_code == 200, opened.text
        return opened.headers["mcp-session-id"]

    async def ping(self, session_id: str) -> int:
        body = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        answer = await self.http.post(self.url, json=body, headers=self.headers(session_id))
        return answer.status_code

    async def hold(self, stack: AsyncExitStack, session_id: str) -> None:
        """The session's GET stream, open until `stack` closes: a request in flight."""
        headers = {**self.headers(session_id), "accept": "text/event-stream"}
        stream = await stack.enter_async_context(self.http.stream("GET", self.url, headers=headers))
        assert stream.status_code == 200


def test_one_key_at_its_cap_locks_out_only_itself(store: Store) -> None:
    theirs = store.workspace("Theirs")
    draft = store.post("Their draft", workspace_id=theirs).id
    key_a, key_b = store.api_key(), store.api_key(theirs)

    async def body(base_url: str) -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=10) as http, AsyncExitStack() as held:
            a = Client(http, base_url, key_a)
            first, second = await a.session(), await a.session()
            # At the cap, with both idle: the one idle the longest makes room.
            third = await a.session()
            pings = [await a.ping(first), await a.ping(second), await a.ping(third)]
            # Both now busy (their GET streams open): the fourth is refused.
            await a.hold(held, second)
            await a.hold(held, third)
            refused = await a.open()
            # Another workspace's key is untouched by all this.
            async with http_session(base_url, {"x-api-key": key_b}) as mcp:
                shown = structured(await mcp.call_tool("get_post", {"postId": draft}))
            return {"pings": pings, "refused": refused, "shown": shown}

    with server_with(mcp_sessions_per_caller=2) as server:
        seen = run(lambda: body(server.base_url))
    assert seen["pings"] == [404, 200, 200]
    refused = seen["refused"]
    assert refused.status_code == 429
    assert refused.json() == {
        "success": False,
        "message": "Too many MCP sessions: this API key (with this user's token, if any) may "
        "keep 2 open, and all 2 have a request in flight. End one (DELETE /mcp with its "
        "mcp-session-id) or try again when one is done",
    }
    assert seen["shown"]["postContent"] == "Their draft"


def test_the_same_key_with_a_user_s_token_is_another_caller(store: Store) -> None:
    key = store.api_key()

    async def body(base_url: str) -> tuple[int, int, int]:
        async with httpx.AsyncClient(timeout=10) as http, AsyncExitStack() as held:
            alone = Client(http, base_url, key)
            await alone.hold(held, await alone.session())
            refused = (await alone.open()).status_code
            with_token = Client(http, base_url, key, store.token())
            opened = (await with_token.open()).status_code
            return refused, opened, (await alone.open()).status_code

    with server_with(mcp_sessions_per_caller=1) as server:
        assert run(lambda: body(server.base_url)) == (429, 200, 429)


def test_an_idle_session_is_closed_after_the_idle_setting(store: Store) -> None:
    key = store.api_key()

    async def body(base_url: str) -> tuple[list[int], int]:
        async with httpx.AsyncClient(timeout=10) as http:
            client = Client(http, base_url, key)
            kept, left = await client.session(), await client.session()
            # In use every 0.25 s for longer than the idle time: kept open (the pause
            # between pings is an eighth of it: room for a loaded machine).
            pings = []
            for _ in range(12):
                await anyio.sleep(0.25)
                pings.append(await client.ping(kept))
            await anyio.sleep(1.0)
            return pings, await client.ping(left)

    with server_with(mcp_session_idle=timedelta(seconds=2)) as server:
        pings, left = run(lambda: body(server.base_url))
    assert pings == [200] * 12
    assert left == 404  # idle 4 s: closed by then


# --- the book -----------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


A = ("key-a", None)
B = ("key-b", None)


def opened(book: SessionBook, credential: tuple[str, str | None], session_id: str) -> None:
    admission = book.admit(credential)
    assert admission is not None and admission.close is None
    book.opened(credential, session_id)


def test_the_book_closes_the_longest_idle_and_refuses_when_all_are_busy() -> None:
    clock = Clock()
    book = SessionBook(per_caller=2, idle_seconds=600, clock=clock)
    opened(book, A, "a1")
    clock.now += 1
    opened(book, A, "a2")
    in_use = book.begin(A, "a1")  # a1 is busy now; a2 idle
    admission = book.admit(A)
    assert admission is not None and admission.close == "a2"
    book.opened(A, "a3")
    busy = book.begin(A, "a3")
    assert book.admit(A) is None  # a1 and a3 busy
    assert book.open_count(A) == 2 and book.open_count(B) == 0
    opened(book, B, "b1")  # another caller's own cap
    book.end(A, "a3", busy, status=200, deleting=False)
    clock.now += 1
    book.end(A, "a1", in_use, status=200, deleting=False)
    admission = book.admit(A)
    assert admission is not None and admission.close == "a3"  # idle since earlier


def test_the_book_counts_an_opening_until_it_is_answered() -> None:
    book = SessionBook(per_caller=1, idle_seconds=600, clock=Clock())
    assert book.admit(A) is not None
    assert book.admit(A) is None  # the first is still being opened: it counts
    book.opened(A, None)  # refused by the SDK (or the client went away): nothing opened
    assert book.open_count(A) == 0
    assert book.admit(A) is not None


def test_the_book_forgets_expired_deleted_and_unknown_sessions() -> None:
    clock = Clock()
    book = SessionBook(per_caller=3, idle_seconds=10, clock=clock)
    for name in ("a1", "a2", "a3"):
        opened(book, A, name)
    book.end(A, "a1", book.begin(A, "a1"), status=200, deleting=True)  # the client's DELETE
    book.end(A, "a2", book.begin(A, "a2"), status=404, deleting=False)  # the SDK lost it
    assert book.open_count(A) == 1
    clock.now += 10
    assert book.open_count(A) == 0  # a3 expired with the SDK's idle timer
    # Served on an id the book had forgotten: it is open after all, counted again.
    book.end(A, "a3", book.begin(A, "a3"), status=200, deleting=False)
    assert book.open_count(A) == 1
    # Another key's requests on it (a 404 from the SDK) change nothing of A's.
    book.end(B, "a3", book.begin(B, "a3"), status=404, deleting=False)
    assert book.open_count(A) == 1 and book.open_count(B) == 0


def test_the_book_refuses_a_cap_or_timeout_that_means_nothing() -> None:
    with pytest.raises(ValueError, match="per_caller must be at least 1"):
        SessionBook(per_caller=0, idle_seconds=1)
    with pytest.raises(ValueError, match="idle_seconds must be positive"):
        SessionBook(per_caller=1, idle_seconds=0)
