"""Each request to /mcp through the caller's session cap (sessions.py), then the SDK.

A request without a session id may open a session: it is admitted by the book, after
the caller's longest-idle session is closed if the caller is at the cap, or refused
with a 429. A request on a session keeps that session busy while it runs. What the
SDK answers (the new session's id, a 404 for a session it no longer has, a served
DELETE) keeps the book in step. The SDK's own rules are untouched: it still checks
that a session is used by the credentials that opened it.

A session is closed as its client would close it: a DELETE with its id and the same
credentials, through the SDK, which ends it and forgets it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from socialgen.kit.errors import SocialgenError
from socialgen.mcp_server.sessions import Credential, SessionBook

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

logger = logging.getLogger("socialgen.mcp")

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"


@dataclass
class _Answer:
    status: int | None = None
    session_id: str | None = None


class TooManySessions(SocialgenError):
    """429: the caller is at its cap and no session of theirs is idle."""

    status_code = 429

    def __init__(self, cap: int) -> None:
        super().__init__(
            f"Too many MCP sessions: this API key (with this user's token, if any) may keep "
            f"{cap} open, and all {cap} have a request in flight. End one (DELETE /mcp "
            f"with its mcp-session-id) or try again when one is done"
        )


class SessionGate:
    def __init__(self, book: SessionBook) -> None:
        self.book = book

    async def handle(
        self,
        manager: StreamableHTTPSessionManager,
        credential: Credential,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """Raises TooManySessions before anything is sent."""
        headers = Headers(scope=scope)
        session_id = headers.get(SESSION_HEADER)
        if session_id is not None:
            await self._on_session(manager, credential, session_id, scope, receive, send)
        elif _opens_a_session(headers):
            await self._opening(manager, credential, scope, receive, send)
        else:
            await manager.handle_request(scope, receive, send)

    async def _on_session(
        self,
        manager: StreamableHTTPSessionManager,
        credential: Credential,
        session_id: str,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        found = self.book.begin(credential, session_id)
        answer = _Answer()
        try:
            await manager.handle_request(scope, receive, _watching(send, answer))
        finally:
            self.book.end(
                credential,
                session_id,
                found,
                status=answer.status,
                deleting=scope["method"] == "DELETE",
            )

    async def _opening(
        self,
        manager: StreamableHTTPSessionManager,
        credential: Credential,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        admission = self.book.admit(credential)
        if admission is None:
            logger.warning("MCP session refused: a caller has %d busy", self.book.per_caller)
            raise TooManySessions(self.book.per_caller)
        answer = _Answer()
        try:
            if admission.close is not None:
                logger.info("MCP session closed to make room for another of its caller")
                await _close(manager, scope, admission.close)
            await manager.handle_request(scope, receive, _watching(send, answer))
        finally:
            served = answer.status is not None and answer.status < 400
            self.book.opened(credential, answer.session_id if served else None)


def _opens_a_session(headers: Headers) -> bool:
    """As the SDK routes it: no session id, and no protocol version, or one of those
    that open with a handshake (a later one is served without a session)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    version = headers.get(VERSION_HEADER)
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


def _watching(send: Send, answer: _Answer) -> Send:
    """`send`, noting the status and the session id the SDK answers with."""

    async def watched(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer.status = message["status"]
            answer.session_id = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
        await send(message)

    return watched


async def _close(manager: StreamableHTTPSessionManager, scope: Scope, session_id: str) -> None:
    """DELETE `session_id` through the SDK with this request's credentials (the same
    caller's: the SDK checks it, as for any DELETE)."""
    keep = {b"host", b"x-api-key", b"authorization"}
    headers = [(name, value) for name, value in scope["headers"] if name in keep]
    headers.append((SESSION_HEADER.encode(), session_id.encode("latin-1")))
    delete: Scope = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}

    async def no_body() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def dropped(message: Message) -> None:
        return None

    await manager.handle_request(delete, no_body, dropped)
