"""A fake Discord API for a channel's webhooks: a real HTTP server on 127.0.0.1, in a thread.

Written from Discord's API reference (resources/webhook, reference "Uploading Files",
topics/rate-limits); strict where a client can get it wrong, as lax as Discord where
Discord is (unknown JSON fields are ignored). Routes under /api and /api/v{N}:
GET /webhooks/{id}/{token} (no auth header), POST it (execute), and GET / PATCH / DELETE
/webhooks/{id}/{token}/messages/{message_id}. Discord's answers: an unknown webhook is
404 code 10015, a wrong token 401 code 50027, an unknown message 404 code 10008;
execute without `wait=true` creates the message and answers 204 with no body; content
over 2,000 characters is 400 code 50035 with `errors`; no content and no file 400 code
50006; a body that is not JSON (or a bad `payload_json`) 400 code 50109; more than 10
files, or an `attachments` entry naming no file sent, 400 code 50035; more than 10 MiB
of files 413 code 40005. `allowed_mentions` decides whether an @everyone pings
(`FakeMessage.mention_everyone`); an edit without it is parsed with the defaults.
Every answer carries X-RateLimit-* headers from a bucket per webhook and method
(`limit` requests per `window` seconds); past it, 429 with Retry-After and
{"message", "retry_after", "global"}, counted in `rate_limited`.

Faults (`fake.add_fault(Fault(...))`): the next matching request(s) answer a status,
drop the connection, or hang; with `after_processing` the request is carried out
first (the message exists) and only the answer is lost.
"""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_CONTENT = 2000
MAX_FILES = 10
MAX_FILE_BYTES = 10 * 1024 * 1024
_MENTION_KINDS = {"roles", "users", "everyone"}


@dataclass
class Fault:
    """kind: "status" (answer `status`; a 429 gets Retry-After `retry_after`),
    "drop" (close the connection without a byte), "hang" (send nothing for `seconds`).
    method: "" matches every request; skip: matching requests let through first;
    after_processing: carry the request out first."""

    kind: str
    method: str = ""
    status: int = 500
    retry_after: float = 1.0
    after_processing: bool = False
    seconds: float = 30.0
    times: int = 1
    skip: int = 0


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes


@dataclass(frozen=True)
class FakeFile:
    field: str  # files[n]
    filename: str
    content_type: str
    data: bytes
    description: str = ""


@dataclass
class FakeWebhook:
    id: str
    token: str
    name: str
    channel_id: str
    guild_id: str
    deleted: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "type": 1, "name": self.name, "avatar": None,
            "channel_id": self.channel_id, "guild_id": self.guild_id,
            "application_id": None, "token": self.token,
        }  # fmt: skip


@dataclass
class FakeMessage:
    id: str
    webhook: FakeWebhook
    content: str
    files: list[FakeFile]
    allowed_mentions: Any
    mention_everyone: bool
    timestamp: str
    edited_timestamp: str | None = None
    deleted: bool = False

    def as_json(self) -> dict[str, Any]:
        hook = self.webhook
        return {
            "id": self.id, "type": 0, "content": self.content, "channel_id": hook.channel_id,
            "author": {"id": hook.id, "username": hook.name, "bot": True},
            "attachments": [
                {"id": str(n), "filename": f.filename, "size": len(f.data),
                 "content_type": f.content_type, "description": f.description}
                for n, f in enumerate(self.files)
            ],
            "embeds": [], "mentions": [], "mention_roles": [],
            "mention_everyone": self.mention_everyone, "pinned": False, "tts": False,
            "timestamp": self.timestamp, "edited_timestamp": self.edited_timestamp,
            "flags": 0, "webhook_id": hook.id,
        }  # fmt: skip


@dataclass
class Answer:
    status: int
    body: Any = None  # JSON; None: no body
    headers: dict[str, str] = field(default_factory=dict)


class _Dropped(Exception):
    pass


def _error(status: int, code: int, message: str, errors: Any = None) -> Answer:
    body: dict[str, Any] = {"message": message, "code": code}
    if errors is not None:
        body["errors"] = errors
    return Answer(status, body)


def _form_error(field_name: str, code: str, message: str) -> Answer:
    errors = {field_name: {"_errors": [{"code": code, "message": message}]}}
    return _error(400, 50035, "Invalid Form Body", errors)


class FakeDiscord:
    """The fake; use as a context manager. `base_url` is the API base (…/api)."""

    def __init__(self, *, limit: int = 50, window: float = 1.0) -> None:
        self.limit, self.window = limit, window
        self.requests: list[Recorded] = []
        self.messages: list[FakeMessage] = []  # in the order they were created
        self.rate_limited = 0
        self._webhooks: dict[str, FakeWebhook] = {}
        self._buckets: dict[tuple[str, str], tuple[int, float]] = {}
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._next_id = 1_200_000_000_000_000_000
        self._server: _Server | None = None
        self.base_url = ""

    def __enter__(self) -> FakeDiscord:
        server = _Server(("127.0.0.1", 0))
        server.fake = self
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}/api"
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._closing.set()  # wakes handlers asleep in a "hang"
        server.shutdown()
        server.server_close()
        with server.connections_lock:
            for connection in list(server.open_connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)

    # -- what tests set and read ------------------------------------------------------

    def add_webhook(self, name: str = "Captain Hook", channel_id: str = "") -> FakeWebhook:
        with self._lock:
            hook = FakeWebhook(
                id=self._new_id(), token=secrets.token_urlsafe(51), name=name,
                channel_id=channel_id or self._new_id(), guild_id="81384788765712384",
            )  # fmt: skip
            self._webhooks[hook.id] = hook
        return hook

    def url_of(self, hook: FakeWebhook) -> str:
        return f"{self.base_url}/webhooks/{hook.id}/{hook.token}"

    def delete_webhook(self, hook: FakeWebhook) -> None:
        hook.deleted = True

    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def live(self, hook: FakeWebhook | None = None) -> list[FakeMessage]:
        """The messages in the channel now (of one webhook), oldest first."""
        with self._lock:
            return [m for m in self.messages if not m.deleted and hook in (None, m.webhook)]

    def texts(self, hook: FakeWebhook | None = None) -> list[str]:
        return [message.content for message in self.live(hook)]

    def requests_to(self, method: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.method == method]

    # -- the handler's side ---------------------------------------------------------------

    def _new_id(self) -> str:
        self._next_id += 4_194_304 * 1000  # a snowflake a second later
        return str(self._next_id)

    def _take_fault(self, method: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.method in ("", method):
                    if fault.skip > 0:
                        fault.skip -= 1
                        return None
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _rate(self, key: tuple[str, str]) -> tuple[bool, dict[str, str], float]:
        """Take one request from the bucket: (allowed, headers, seconds to reset)."""
        with self._lock:
            now = time.monotonic()
            used, reset_at = self._buckets.get(key, (0, 0.0))
            if now >= reset_at:
                used, reset_at = 0, now + self.window
            allowed = used < self.limit
            used += 1 if allowed else 0
            self._buckets[key] = (used, reset_at)
            self.rate_limited += 0 if allowed else 1
        after = max(0.0, reset_at - now)
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - used)),
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": f"{abs(hash(key)) % 10**8:08x}",
        }
        return allowed, headers, after

    def _route(self, request: Recorded) -> Answer:
        parts = request.path.strip("/").split("/")
        if parts[:1] != ["api"]:
            return _error(404, 0, "404: Not Found")
        parts = parts[2:] if len(parts) > 1 and parts[1][:1] == "v" else parts[1:]
        if len(parts) not in (3, 5) or parts[0] != "webhooks":
            return _error(404, 0, "404: Not Found")
        with self._lock:
            hook = self._webhooks.get(parts[1])
        if hook is None or hook.deleted:
            return _error(404, 10015, "Unknown Webhook")
        if not secrets.compare_digest(parts[2], hook.token):
            return _error(401, 50027, "Invalid Webhook Token")
        allowed, headers, after = self._rate((hook.id, request.method))
        if not allowed:
            body = {"message": "You are being rate limited.", "retry_after": round(after, 3),
                    "global": False}  # fmt: skip
            headers |= {"Retry-After": str(math.ceil(after)), "X-RateLimit-Scope": "user"}
            return Answer(429, body, headers)
        answer = self._webhook_route(request, hook, parts[4] if len(parts) == 5 else None)
        answer.headers.update(headers)
        return answer

    def _webhook_route(
        self, request: Recorded, hook: FakeWebhook, message_id: str | None
    ) -> Answer:
        if message_id is None and request.method == "GET":
            return Answer(200, hook.as_json())
        if message_id is None and request.method == "POST":
            return self._execute(request, hook)
        if message_id is None:
            return _error(405, 0, "405: Method Not Allowed")
        with self._lock:
            found = [m for m in self.messages if m.id == message_id and m.webhook is hook]
        if not found or found[0].deleted:
            return _error(404, 10008, "Unknown Message")
        message = found[0]
        if request.method == "GET":
            return Answer(200, message.as_json())
        if request.method == "DELETE":
            message.deleted = True
            return Answer(204)
        if request.method == "PATCH":
            return self._edit(request, message)
        return _error(405, 0, "405: Method Not Allowed")

    def _execute(self, request: Recorded, hook: FakeWebhook) -> Answer:
        payload, files = _read_body(request)
        if isinstance(payload, Answer):
            return payload
        refused = _check_message(payload, files)
        if refused is not None:
            return refused
        entries = payload.get("attachments") or []
        for entry in entries if isinstance(entries, list) else []:
            index = str(entry.get("id")) if isinstance(entry, dict) else ""
            named = [f for f in files if f.field == f"files[{index}]"]
            if not named:
                return _form_error("attachments", "ATTACHMENT_NOT_FOUND", "Unknown attachment")
            files[files.index(named[0])] = FakeFile(
                named[0].field, str(entry.get("filename") or named[0].filename),
                named[0].content_type, named[0].data, str(entry.get("description") or ""),
            )  # fmt: skip
        content = payload.get("content") or ""
        with self._lock:
            message = FakeMessage(
                self._new_id(), hook, content, files, payload.get("allowed_mentions"),
                _pings(content, payload.get("allowed_mentions")),
                datetime.now(UTC).isoformat(),
            )  # fmt: skip
            self.messages.append(message)
        wait = (request.query.get("wait") or ["false"])[0].lower() in ("true", "1")
        return Answer(200, message.as_json()) if wait else Answer(204)

    def _edit(self, request: Recorded, message: FakeMessage) -> Answer:
        payload, files = _read_body(request)
        if isinstance(payload, Answer):
            return payload
        if "content" in payload:
            content = payload.get("content") or ""
            refused = _check_message(payload, files or message.files)
            if refused is not None:
                return refused
            message.content = content
            # No allowed_mentions in the edit: Discord parses with its defaults.
            message.allowed_mentions = payload.get("allowed_mentions")
            message.mention_everyone = _pings(content, message.allowed_mentions)
        message.edited_timestamp = datetime.now(UTC).isoformat()
        return Answer(200, message.as_json())


def _pings(content: str, allowed: Any) -> bool:
    everyone = "@everyone" in content or "@here" in content
    parse = allowed.get("parse") if isinstance(allowed, dict) else None
    return everyone and (allowed is None or (isinstance(parse, list) and "everyone" in parse))


def _check_message(payload: dict[str, Any], files: list[FakeFile]) -> Answer | None:
    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        return _form_error("content", "STRING_TYPE_CONVERT", "Could not interpret as string.")
    if content is not None and len(content) > MAX_CONTENT:
        return _form_error("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    allowed = payload.get("allowed_mentions")
    if allowed is not None:
        parse = allowed.get("parse", []) if isinstance(allowed, dict) else None
        if not isinstance(parse, list) or not set(map(str, parse)) <= _MENTION_KINDS:
            return _form_error("allowed_mentions", "MODEL_TYPE_CONVERT", "Bad allowed mentions.")
    if len(files) > MAX_FILES:
        return _form_error("files", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    if sum(len(f.data) for f in files) > MAX_FILE_BYTES:
        return _error(413, 40005, "Request entity too large")
    if not (content or "").strip() and not files:
        return _error(400, 50006, "Cannot send an empty message")
    return None


def _read_body(request: Recorded) -> tuple[dict[str, Any] | Answer, list[FakeFile]]:
    """The JSON payload (or `payload_json`) and the files of a request."""
    kind = request.headers.get("content-type", "")
    raw: bytes | str = request.body
    files: list[FakeFile] = []
    if kind.startswith("multipart/form-data"):
        head = f"Content-Type: {kind}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + request.body)
        raw = ""
        for part in form.iter_parts():
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True)
            data = data if isinstance(data, bytes) else b""
            if name == "payload_json":
                raw = data
            elif isinstance(name, str) and name.startswith("files["):
                filename = str(part.get_filename() or "")
                files.append(FakeFile(name, filename, part.get_content_type(), data))
    elif not kind.startswith("application/json"):
        return _error(400, 50109, "The request body contains invalid JSON."), files
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        return _error(400, 50109, "The request body contains invalid JSON."), files
    if not isinstance(payload, dict):
        return _form_error("_root", "DICT_TYPE_CONVERT", "Only dictionaries may be used."), files
    return payload, files


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeDiscord

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (a timeout in a test) resets the connection: normal


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        fake, method = self.server.fake, self.command
        split = urlsplit(self.path)
        fault = fake._take_fault(method)
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = Recorded(method, split.path, parse_qs(split.query), headers, body)
            with fake._lock:
                fake.requests.append(request)
            if fault is not None and not fault.after_processing:
                self._misbehave(fault)
            answer = fake._route(request)
            if fault is not None:
                self._misbehave(fault)
            self._send(answer)
        except (_Dropped, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PATCH = do_DELETE = _serve

    def _misbehave(self, fault: Fault) -> None:
        if fault.kind == "status":
            headers = {"Retry-After": str(math.ceil(fault.retry_after))}
            body: dict[str, Any] = {"message": f"{fault.status}: fake fault", "code": 0}
            if fault.status == 429:
                body = {"message": "You are being rate limited.",
                        "retry_after": fault.retry_after, "global": False}  # fmt: skip
            self._send(Answer(fault.status, body, headers if fault.status == 429 else {}))
            raise _Dropped
        if fault.kind == "hang":
            self.server.fake._closing.wait(fault.seconds)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Dropped

    def _send(self, answer: Answer) -> None:
        data = b"" if answer.body is None else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        if answer.body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
