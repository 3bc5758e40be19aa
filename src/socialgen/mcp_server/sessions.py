"""Which MCP sessions each caller keeps open on `serve`, and which one to close.

The SDK caps sessions for the whole server only (10,000): one valid key, even one of
an unrelated workspace, could hold them all and lock every other workspace out. So
each caller, the credential the SDK binds a session to (the API key's hash and the
bearer token's user), keeps at most `per_caller` sessions. Opening one more closes
that caller's session idle the longest; only when every one of them has a request in
flight is the new one refused. Why close rather than refuse: a client that quits or
restarts without ending its session (a DELETE) leaves it open until it expires, and
refusing would lock the user out of their own key for that long; the session closed
is theirs and the least likely to be in use, and a client told 404 for it opens a
new one (the MCP rule).

This module only keeps the book (no SDK, no I/O): `session_gate.py` applies it to
each request. One event loop uses it, so each method runs without a pause and needs
no lock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

# The API key's hash and the bearer token's user (None: the key alone).
Credential = tuple[str, str | None]


@dataclass
class OpenSession:
    busy: int = 0  # requests in flight (an open GET stream is one)
    idle_since: float = 0.0  # when the last of them ended


@dataclass(frozen=True)
class Admission:
    """A new session may open; `close` names the caller's session to end first."""

    close: str | None = None


@dataclass
class _Caller:
    sessions: dict[str, OpenSession] = field(default_factory=dict)
    opening: int = 0  # opening requests in flight: they count until answered


class SessionBook:
    def __init__(
        self,
        per_caller: int,
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_caller < 1:
            raise ValueError(f"per_caller must be at least 1, got {per_caller}")
        if not idle_seconds > 0:
            raise ValueError(f"idle_seconds must be positive, got {idle_seconds}")
        self.per_caller = per_caller
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._callers: dict[Credential, _Caller] = {}

    def open_count(self, credential: Credential) -> int:
        """The caller's sessions still open (and those being opened)."""
        caller = self._callers.get(credential)
        if caller is None:
            return 0
        self._forget_expired(caller)
        return len(caller.sessions) + caller.opening

    def admit(self, credential: Credential) -> Admission | None:
        """Room for one more session of `credential`, or None (all busy, at the cap).
        Admitted, the opening counts until `opened` is called, whatever happens."""
        caller = self._callers.setdefault(credential, _Caller())
        self._forget_expired(caller)
        close = None
        if len(caller.sessions) + caller.opening >= self.per_caller:
            idle = [(s.idle_since, sid) for sid, s in caller.sessions.items() if not s.busy]
            if not idle:
                self._drop_if_empty(credential, caller)
                return None
            close = min(idle)[1]
            del caller.sessions[close]
        caller.opening += 1
        return Admission(close=close)

    def opened(self, credential: Credential, session_id: str | None) -> None:
        """The opening request is answered: with the new session's id, or None (refused,
        failed, cancelled: nothing was opened)."""
        caller = self._callers.setdefault(credential, _Caller())
        caller.opening -= 1
        if session_id is not None:
            caller.sessions[session_id] = OpenSession(idle_since=self.clock())
        self._drop_if_empty(credential, caller)

    def begin(self, credential: Credential, session_id: str) -> OpenSession | None:
        """A request on a session starts; the session is not idle until it ends. None:
        a session this caller has not opened (the SDK answers it, a 404 if not theirs)."""
        caller = self._callers.get(credential)
        found = None if caller is None else caller.sessions.get(session_id)
        if found is not None:
            found.busy += 1
        return found

    def end(
        self,
        credential: Credential,
        session_id: str,
        found: OpenSession | None,
        *,
        status: int | None,
        deleting: bool,
    ) -> None:
        """The request `begin` gave `found` for has ended, answered with `status` (None:
        no answer, the client went away). A 404 is the SDK's "no such session" (ended,
        expired, or not this caller's); a DELETE it served ended the session."""
        if found is not None:
            found.busy -= 1
            found.idle_since = self.clock()
        served = status is not None and status < 400
        caller = self._callers.get(credential)
        if status == 404 or (deleting and served):
            if caller is not None and found is not None and session_id in caller.sessions:
                del caller.sessions[session_id]
                self._drop_if_empty(credential, caller)
        elif found is None and served and not deleting:
            # Served, yet not in the book: one the book took for expired a moment before
            # the SDK's own timer closed it. It is open and the caller's: count it again.
            caller = self._callers.setdefault(credential, _Caller())
            caller.sessions[session_id] = OpenSession(idle_since=self.clock())

    def _forget_expired(self, caller: _Caller) -> None:
        """Sessions idle past the timeout: the SDK has closed them (its timer starts
        when the request ends in the SDK, a moment before this book's)."""
        oldest = self.clock() - self.idle_seconds
        for sid in [s for s, o in caller.sessions.items() if not o.busy and o.idle_since <= oldest]:
            del caller.sessions[sid]

    def _drop_if_empty(self, credential: Credential, caller: _Caller) -> None:
        if not caller.sessions and not caller.opening:
            self._callers.pop(credential, None)
