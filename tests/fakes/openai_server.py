"""A fake OpenAI-compatible HTTP server for tests: deterministic, local, no network.

It listens on a real socket on 127.0.0.1 (port picked by the OS) from a background thread,
so litellm (or any OpenAI client) can be exercised for real:

    with FakeOpenAI() as fake:
        fake.script(Reply(text="Hello there", reasoning="Let me think", token_delay=0.01))
        await litellm.acompletion(
            model="openai/fake-model", api_base=fake.base_url, api_key="sk-fake",
            messages=[...], stream=True, num_retries=0, timeout=5,
        )
        assert fake.requests[0]["messages"][-1]["content"] == ...

Each POST /v1/chat/completions is answered by the next scripted `Reply` (`fake.script`),
or, once the script is used up, by `fake.responder(body)`. Requests are served
concurrently (one thread each). Streams use HTTP/1.1 chunked transfer encoding, so a
`cut_after` reply that drops the connection looks to the client like a real broken
stream (incomplete chunked body), not like a normal end of response.

Images: POST /v1/images/generations (JSON) and POST /v1/images/edits (multipart) answer
OpenAI's `{"created": ..., "data": [{"b64_json": ...}]}` with a small PNG whose colour
comes from the prompt (`fake_image_png`); each request is kept in `fake.image_requests`.
`fake.image_status` / `fake.image_edit_status` make them fail, `fake.image_answer`
picks the answer's shape ("b64_json", "url" served by the fake itself, or "junk").
"""

from __future__ import annotations

import base64
import contextlib
import email.policy
import hashlib
import io
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "DEFAULT_TEXT",
    "FAKE_API_KEY",
    "FAKE_MODEL",
    "FakeOpenAI",
    "ImageRequest",
    "Reply",
    "Responder",
    "UploadedFile",
    "fake_image_png",
    "last_user_message",
    "wants_json",
]

FAKE_MODEL = "fake-model"
FAKE_API_KEY = "sk-fake"
DEFAULT_TEXT = "This is a fake reply from the fake OpenAI server."


@dataclass
class Reply:
    """How the fake answers one chat completion request.

    text: the assistant content (for a non-200 status: the error message, if given).
    reasoning: streamed before the text as `delta.reasoning_content` chunks (non-stream:
        `message.reasoning_content`).
    chunk_chars: characters of text (and of reasoning) per streamed chunk.
    first_delay: seconds to wait before sending anything (status line included), i.e.
        time to first byte; non-stream and error replies wait too.
    token_delay: seconds to sleep between streamed chunks (reasoning and content).
    status: HTTP status; anything but 200 sends an OpenAI-style error JSON body.
    cut_after: stream: after this many content chunks, drop the connection without the
        final chunk or `data: [DONE]` (0 = right after the headers). Non-stream: drop
        the connection without any response.
    usage: the `usage` object of the final chunk / the non-stream body; None = computed
        (rough, deterministic token counts).
    finish_reason: the finish reason of the final chunk / the choice.
    """

    text: str = ""
    reasoning: str = ""
    chunk_chars: int = 4
    token_delay: float = 0.0
    first_delay: float = 0.0
    status: int = 200
    cut_after: int | None = None
    usage: dict[str, Any] | None = None
    finish_reason: str = "stop"

    @classmethod
    def json(cls, obj: Any, **kwargs: Any) -> Reply:
        """A reply whose text is `json.dumps(obj)` (for response_format requests)."""
        return cls(text=json.dumps(obj), **kwargs)


Responder = Callable[[dict[str, Any]], "Reply | str"]

IMAGE_PATHS = {
    "/v1/images/generations": "generations",
    "/images/generations": "generations",
    "/v1/images/edits": "edits",
    "/images/edits": "edits",
}
IMAGE_FILES_PATH = "/v1/fake-images/"  # where "url" answers point (served by GET)
JUNK_IMAGE = b"this is not an image"


@dataclass(frozen=True)
class UploadedFile:
    """One file part of a multipart request."""

    field: str  # the form field name, e.g. "image[]"
    filename: str
    content_type: str
    data: bytes


@dataclass(frozen=True)
class ImageRequest:
    """One images request the fake received.

    endpoint: "generations" or "edits".
    body: the JSON body (generations) or the multipart text fields (edits).
    files: the multipart file parts (edits), in order.
    """

    endpoint: str
    body: dict[str, Any]
    files: list[UploadedFile] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        return str(self.body.get("prompt", ""))


def fake_image_png(prompt: str, size: str = "1024x1024") -> bytes:
    """A one-colour PNG, 1/16 of `size` ("WxH") on each side; the colour is a hash of
    `prompt`, so different prompts give different images (and tests can tell)."""
    from PIL import Image  # only the image routes need Pillow

    try:
        width, height = (max(1, int(side) // 16) for side in size.lower().split("x", 1))
    except ValueError:
        width, height = 64, 64
    red, green, blue = hashlib.sha256(prompt.encode()).digest()[:3]
    out = io.BytesIO()
    Image.new("RGB", (width, height), (red, green, blue)).save(out, "PNG")
    return out.getvalue()


def _parse_multipart(content_type: str, raw: bytes) -> tuple[dict[str, Any], list[UploadedFile]]:
    """Text fields and file parts of a multipart/form-data body (stdlib email parser)."""
    message = BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
    )
    fields: dict[str, Any] = {}
    files: list[UploadedFile] = []
    if not message.is_multipart():
        return fields, files
    for part in message.iter_parts():
        name = str(part.get_param("name", "", header="content-disposition"))
        data = part.get_payload(decode=True)
        payload = data if isinstance(data, bytes) else b""
        filename = part.get_filename()
        if filename is None:
            fields[name] = payload.decode("utf-8", errors="replace")
        else:
            files.append(UploadedFile(name, filename, part.get_content_type(), payload))
    return fields, files


def last_user_message(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat completion request body ("" if none).

    Content given as a list of parts has its text parts joined with newlines.
    """
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(
                str(part.get("text", ""))
                for part in content
                if isinstance(part, dict) and part.get("type") == "text"
            )
        return ""
    return ""


def wants_json(body: dict[str, Any]) -> bool:
    """Whether the request asks for structured output (`response_format` present)."""
    return bool(body.get("response_format"))


def _default_responder(body: dict[str, Any]) -> Reply:
    return Reply(text=DEFAULT_TEXT)


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _rough_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


def _prompt_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.usage is not None:
        return reply.usage
    prompt = _rough_tokens(_prompt_text(body))
    completion = _rough_tokens(reply.text) + _rough_tokens(reply.reasoning)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


class _Cut(Exception):
    """Raised inside a handler to drop the connection abruptly."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    fake: FakeOpenAI

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a CLI closing its event loop, a cancelled stream)
        resets the connection: normal for a server, not worth a traceback. Printing
        one would land in whatever stderr a test is capturing at that moment."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        """Shut down every open connection (idle keep-alive ones and live streams)."""
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; streams use chunked transfer encoding
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Small SSE writes must leave at once (no Nagle delay skewing token timings).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet

    # -- plumbing ---------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, type_: str | None = None) -> None:
        self._send_json(
            status,
            {
                "error": {
                    "message": message,
                    "type": type_ or _error_type(status),
                    "param": None,
                    "code": _error_code(status),
                }
            },
        )

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _sse(self, payload: dict[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._write_chunk(f"data: {text}\n\n".encode())

    def _cut(self) -> None:
        """Drop the connection now (FIN both ways): no more bytes, no final chunk, no reuse."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise _Cut

    # -- routes -----------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": self.server.fake.model,
                            "object": "model",
                            "created": 0,
                            "owned_by": "fake",
                        }
                    ],
                },
            )
        elif path.startswith(IMAGE_FILES_PATH):
            self._image_file(path[len(IMAGE_FILES_PATH) :])
        else:
            self._error(404, f"Unknown path {self.path}", "invalid_request_error")

    def do_POST(self) -> None:
        try:
            self._post()
        except (_Cut, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _post(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in IMAGE_PATHS:
            self._images(IMAGE_PATHS[path], raw)
            return
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"Unknown path {self.path}", "invalid_request_error")
            return
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the request body is not a JSON object")
        except ValueError as exc:
            self._error(400, f"Invalid JSON body: {exc}", "invalid_request_error")
            return
        fake = self.server.fake
        fake._record(body, {k.lower(): v for k, v in self.headers.items()})
        if self._refuses_format(body):
            return
        try:
            reply = fake._next_reply(body)
        except Exception as exc:  # a responder bug: surface it as a 500 and keep it
            fake._record_error(exc)
            self._error(500, f"fake responder failed: {exc!r}", "server_error")
            return
        if reply.first_delay > 0:
            time.sleep(reply.first_delay)
        if reply.status != 200:
            self._error(reply.status, reply.text or f"Fake error {reply.status}")
            return
        if body.get("stream"):
            self._stream(body, reply)
        else:
            self._complete(body, reply)

    def _refuses_format(self, body: dict[str, Any]) -> bool:
        """Answer a refusal of the requested output format, if this fake refuses it."""
        fake = self.server.fake
        kind = (body.get("response_format") or {}).get("type")
        if kind in fake.refused_formats:
            allowed = [t for t in ("text", "json_object") if t not in fake.refused_formats]
            # llama_cpp.server's words (its request model's validation error).
            detail = {
                "type": "literal_error",
                "loc": ["body", "response_format", "type"],
                "msg": "Input should be " + " or ".join(repr(t) for t in allowed),
                "input": kind,
            }
            self._error(fake.refusal_status, f"1 validation error: {detail}")
            return True
        if fake.refuses_grammar and "grammar" in body:
            self._error(
                400, "Unrecognized request argument supplied: grammar", "invalid_request_error"
            )
            return True
        return False

    def _images(self, endpoint: str, raw: bytes) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        files: list[UploadedFile] = []
        if endpoint == "edits":
            body, files = _parse_multipart(headers.get("content-type", ""), raw)
        else:
            try:
                body = json.loads(raw or b"{}")
            except ValueError as exc:
                self._error(400, f"Invalid JSON body: {exc}", "invalid_request_error")
                return
        fake = self.server.fake
        fake._record_image(ImageRequest(endpoint, body, files, headers))
        if fake.image_delay > 0:
            time.sleep(fake.image_delay)
        status = fake.image_status
        if endpoint == "edits" and status == 200:
            status = fake.image_edit_status
        if status != 200:
            self._error(status, f"Fake images error {status}")
            return
        png = fake_image_png(str(body.get("prompt", "")), str(body.get("size") or "1024x1024"))
        if fake.image_answer == "url":
            item = {"url": fake._image_url(png)}
        elif fake.image_answer == "junk":
            item = {"b64_json": base64.b64encode(JUNK_IMAGE).decode("ascii")}
        else:
            item = {"b64_json": base64.b64encode(png).decode("ascii")}
        self._send_json(200, {"created": int(time.time()), "data": [item]})

    def _image_file(self, name: str) -> None:
        data = self.server.fake._image_files.get(name)
        if data is None:
            self._error(404, f"Unknown path {self.path}", "invalid_request_error")
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _complete(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.cut_after is not None:
            self._cut()
        fake = self.server.fake
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        self._send_json(
            200,
            {
                "id": fake._new_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model") or fake.model,
                "system_fingerprint": "fp_fake",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": _usage(reply, body),
            },
        )

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        fake = self.server.fake
        base = {
            "id": fake._new_id(),
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model") or fake.model,
            "system_fingerprint": "fp_fake",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**base, "choices": [choice]}

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if reply.cut_after == 0:
            self._cut()
        self._sse(chunk({"role": "assistant", "content": ""}))
        pause = False
        for piece in _chunks(reply.reasoning, reply.chunk_chars):
            if pause and reply.token_delay > 0:
                time.sleep(reply.token_delay)
            pause = True
            self._sse(chunk({"reasoning_content": piece}))
        for sent, piece in enumerate(_chunks(reply.text, reply.chunk_chars)):
            if reply.cut_after is not None and sent >= reply.cut_after:
                self._cut()
            if pause and reply.token_delay > 0:
                time.sleep(reply.token_delay)
            pause = True
            self._sse(chunk({"content": piece}))
        if reply.cut_after is not None:  # fewer chunks than cut_after: cut before the end
            self._cut()
        self._sse(chunk({}, reply.finish_reason))
        # As OpenAI does with stream_options.include_usage (sent here always): a last
        # chunk with no choices and the usage.
        self._sse({**base, "choices": [], "usage": _usage(reply, body)})
        self._sse("[DONE]")
        self._write_chunk(b"")  # end of the chunked body


def _error_type(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status == 429:
        return "rate_limit_error"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def _error_code(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_")
    except ValueError:
        return f"http_{status}"


class FakeOpenAI:
    """A fake OpenAI-compatible server on 127.0.0.1; use as a context manager.

    Attributes:
        base_url: "http://127.0.0.1:PORT/v1", the api_base to give clients.
        requests: the JSON bodies of the chat completion requests received, in order
            of arrival (appended under a lock; read it once the calls are done).
        headers: the request headers (names lower-cased), parallel to `requests`.
        errors: exceptions raised by the responder (each was answered with a 500).
        responder: decides the reply to a request once the script is used up.
        model: the model name served by GET /v1/models ("fake-model").
        image_requests: the images requests received (`ImageRequest`), in order.
        image_status: anything but 200 makes both image routes answer that error.
        image_edit_status: the same for /images/edits only (a provider without edits).
        image_delay: seconds each image request waits before answering.
        image_answer: "b64_json" (default), "url" (a link to the PNG on this server)
            or "junk" (base64 of bytes that are not an image).
        refused_formats: response_format types refused as llama_cpp.server refuses
            them: its pydantic validation error as the message, with status
            `refusal_status` (500, as that server sends it). {"json_schema"} is that
            server; add "json_object" for a provider that takes neither. Refused
            requests are recorded too.
        refuses_grammar: refuse a `grammar` body field with a 400, as OpenAI does.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        model: str = FAKE_MODEL,
    ) -> None:
        self.responder: Responder = responder or _default_responder
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.errors: list[BaseException] = []
        self.image_requests: list[ImageRequest] = []
        self.image_status = 200
        self.image_edit_status = 200
        self.image_answer = "b64_json"
        self.image_delay = 0.0
        self.refused_formats: set[str] = set()
        self.refusal_status = 500
        self.refuses_grammar = False
        self._image_files: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._script: deque[Reply] = deque()
        self._ids = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", 0))
        server.fake = self
        self._server = server
        port = server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"fake-openai-{port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()  # stop accepting
        server.server_close()
        # Then end the connections still open: clients see them closed, and the
        # (daemon) handler threads return; one asleep in a delay ends when it wakes.
        server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- scripting --------------------------------------------------------------------

    def script(self, *replies: Reply | str) -> FakeOpenAI:
        """Queue replies, consumed one per request in order, before the responder."""
        with self._lock:
            self._script.extend(_as_reply(reply) for reply in replies)
        return self

    @property
    def pending(self) -> int:
        """How many scripted replies have not been used yet."""
        with self._lock:
            return len(self._script)

    def env(self) -> dict[str, str]:
        """The environment variables a process needs to use this server."""
        return {
            "SOCIALGEN_MODEL": f"openai/{self.model}",
            "SOCIALGEN_API_BASE": self.base_url,
            "OPENAI_API_KEY": FAKE_API_KEY,
        }

    def iter_requests(self) -> Iterator[dict[str, Any]]:
        """A snapshot of the received request bodies."""
        with self._lock:
            snapshot = list(self.requests)
        return iter(snapshot)

    # -- used by the handler threads --------------------------------------------------

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)

    def _record_image(self, request: ImageRequest) -> None:
        with self._lock:
            self.image_requests.append(request)

    def _image_url(self, png: bytes) -> str:
        """Keep `png` to be served by GET and return its URL."""
        with self._lock:
            name = f"img-{len(self._image_files) + 1}.png"
            self._image_files[name] = png
        return f"{self.base_url.removesuffix('/v1')}{IMAGE_FILES_PATH}{name}"

    def _record_error(self, exc: BaseException) -> None:
        with self._lock:
            self.errors.append(exc)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            scripted = self._script.popleft() if self._script else None
        if scripted is not None:
            return scripted
        return _as_reply(self.responder(body))

    def _new_id(self) -> str:
        with self._lock:
            self._ids += 1
            return f"chatcmpl-fake{self._ids:06d}"


def _as_reply(reply: Reply | str) -> Reply:
    return reply if isinstance(reply, Reply) else Reply(text=reply)
