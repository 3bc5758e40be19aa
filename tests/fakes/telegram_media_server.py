"""A strict fake of Telegram's Bot API for what the emulator (npm's telegram-test-api,
tests/telegram_support.py) lacks: the media methods, getChat and getChatMember, and
faults. A real HTTP server on 127.0.0.1, in a thread, written from the Bot API
reference (core.telegram.org/bots/api) and stricter than Telegram where a client can
go wrong unseen:

- every call is `POST /bot<token>/<method>`: an unknown token is 401 "Unauthorized", an
  unknown method 404 "Not Found", as Telegram answers; every answer is
  `{"ok": ..., "result"|"error_code"+"description"[+"parameters"]}`;
- a field the method does not have is refused (Telegram ignores it silently: a
  misspelt field would go unseen), and so is a missing or unknown chat_id;
- sendMessage (JSON or form), sendPhoto, sendDocument and sendMediaGroup (multipart
  uploads; an album's `media` names its files `attach://<field>`): text past 4,096
  UTF-16 units, a caption past 1,024, an album of 1 or more than 10 items, documents
  mixed with photos, a reply to a message the chat does not have: refused in
  Telegram's words;
- editMessageText / editMessageCaption ("message is not modified" for the same text),
  deleteMessage ("message to delete not found");
- faults (`fail(Fault(...))`): a status with Telegram's `parameters` (429 with
  retry_after, 400 with migrate_to_chat_id), or "late": the call is carried out (the
  message is live) and the answer comes after `seconds` (past the client's timeout).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

COMMON = {"chat_id", "business_connection_id", "message_thread_id", "disable_notification",
          "protect_content", "allow_paid_broadcast", "message_effect_id", "reply_parameters",
          "reply_markup"}  # fmt: skip
CAPTION = {"caption", "parse_mode", "caption_entities", "show_caption_above_media"}
FIELDS: dict[str, set[str]] = {
    "getMe": set(),
    "getChat": {"chat_id"},
    "getChatMember": {"chat_id", "user_id"},
    "sendMessage": COMMON | {"text", "parse_mode", "entities", "link_preview_options"},
    "sendPhoto": COMMON | CAPTION | {"photo", "has_spoiler"},
    "sendDocument": COMMON | CAPTION | {"document", "thumbnail", "disable_content_type_detection"},
    "sendMediaGroup": COMMON - {"reply_markup"} | {"media"},
    "editMessageText": {
        "chat_id",
        "message_id",
        "text",
        "parse_mode",
        "entities",
        "link_preview_options",
        "reply_markup",
        "inline_message_id",
        "business_connection_id",
    },
    "editMessageCaption": {
        "chat_id",
        "message_id",
        "caption",
        "parse_mode",
        "caption_entities",
        "show_caption_above_media",
        "reply_markup",
        "inline_message_id",
        "business_connection_id",
    },
    "deleteMessage": {"chat_id", "message_id"},
}
MEDIA_ITEM = {"type", "media", "caption", "parse_mode", "caption_entities",
              "show_caption_above_media", "has_spoiler", "thumbnail"}  # fmt: skip
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply "
    "markup are exactly the same as a current content and reply markup of the message"
)


class Refused(Exception):
    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters


@dataclass
class Message:
    message_id: int
    chat_id: int
    kind: str  # text | photo | document
    text: str  # the text, or the caption
    reply_to: int | None = None
    media_group_id: str | None = None
    file: tuple[str, bytes, str] | None = None  # (file name, bytes, content type)


@dataclass
class Fault:
    """The next call(s) of `method` ("" any): "status" answers `code` with `parameters`;
    "late" carries the call out and answers after `seconds`."""

    kind: str
    method: str = ""
    code: int = 429
    description: str = "Too Many Requests: retry after 3"
    parameters: dict[str, Any] | None = None
    seconds: float = 3.0
    times: int = 1


@dataclass
class Call:
    method: str
    fields: dict[str, Any]
    files: dict[str, tuple[str, bytes, str]]
    token: str


@dataclass
class FakeTelegram:
    token: str = "424242:" + "A" * 35
    chat_id: int = -1001234567890
    username: str = "shipweekly"
    title: str = "Ship Weekly"
    member: dict[str, Any] = field(
        default_factory=lambda: {"status": "administrator", "can_post_messages": True}
    )
    messages: list[Message] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> FakeTelegram:
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail(self, fault: Fault) -> None:
        with self._lock:
            self.faults.append(fault)

    def sent(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    # --- the Bot API --------------------------------------------------------------

    def answer(self, token: str, method: str, fields: dict[str, Any], files: Any) -> Any:
        if token != self.token:
            raise Refused(401, "Unauthorized")
        if method not in FIELDS:
            raise Refused(404, "Not Found")
        unknown = set(fields) - FIELDS[method] - set(files)
        if unknown:
            raise Refused(400, f"Bad Request: unknown fields {sorted(unknown)} in {method}")
        if method == "getMe":
            return {"id": 424242, "is_bot": True, "first_name": "Poster", "username": "poster_bot"}
        chat = self._chat(fields)
        if method == "getChat":
            return {"id": chat, "type": "channel", "title": self.title, "username": self.username}
        if method == "getChatMember":
            return {"user": {"id": fields.get("user_id")}, **self.member}
        handler = getattr(self, f"_{method}")
        with self._lock:
            return handler(chat, fields, files)

    def _chat(self, fields: dict[str, Any]) -> int:
        given = str(fields.get("chat_id", "")).strip()
        if not given:
            raise Refused(400, "Bad Request: chat_id is empty")
        if given not in (str(self.chat_id), f"@{self.username}"):
            raise Refused(400, "Bad Request: chat not found")
        return self.chat_id

    def _add(self, chat: int, kind: str, text: str, fields: dict[str, Any], **more: Any) -> Any:
        reply = _json(fields.get("reply_parameters"))
        reply_to = reply.get("message_id") if isinstance(reply, dict) else None
        if reply_to is not None and not any(m.message_id == reply_to for m in self.messages):
            raise Refused(400, "Bad Request: message to be replied not found")
        message = Message(len(self.messages) + 101, chat, kind, text, reply_to, **more)
        self.messages.append(message)
        return self._shown(message)

    def _shown(self, message: Message) -> dict[str, Any]:
        chat = {"id": message.chat_id, "type": "channel", "title": self.title,
                "username": self.username}  # fmt: skip
        shown: dict[str, Any] = {"message_id": message.message_id, "date": int(time.time()),
                                 "chat": chat}  # fmt: skip
        shown["text" if message.kind == "text" else "caption"] = message.text
        return shown

    def _sendMessage(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        text = str(fields.get("text") or "")
        if not text.strip():
            raise Refused(400, "Bad Request: message text is empty")
        _within(text, 4096, "Bad Request: message is too long")
        return self._add(chat, "text", text, fields)

    def _sendPhoto(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        return self._one_file(chat, fields, files, "photo")

    def _sendDocument(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        return self._one_file(chat, fields, files, "document")

    def _one_file(self, chat: int, fields: dict[str, Any], files: Any, kind: str) -> Any:
        if kind not in files:
            raise Refused(400, f"Bad Request: there is no {kind} in the request")
        caption = str(fields.get("caption") or "")
        _within(caption, 1024, "Bad Request: message caption is too long")
        return self._add(chat, kind, caption, fields, file=files[kind])

    def _sendMediaGroup(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        media = _json(fields.get("media"))
        if not isinstance(media, list) or not 2 <= len(media) <= 10:
            count = len(media) if isinstance(media, list) else 0
            raise Refused(400, f"Bad Request: wrong number of media items ({count}): 2 to 10")
        kinds = {item.get("type") for item in media if isinstance(item, dict)}
        if "document" in kinds and kinds != {"document"}:
            raise Refused(400, "Bad Request: document can't be mixed with other media types")
        group, shown = f"group-{len(self.messages)}", []
        for item in media:
            extra = set(item) - MEDIA_ITEM
            if extra or item.get("type") not in ("photo", "document"):
                raise Refused(400, f"Bad Request: can't parse InputMedia: {sorted(extra)}")
            name = str(item.get("media", "")).removeprefix("attach://")
            if not str(item.get("media", "")).startswith("attach://") or name not in files:
                raise Refused(400, "Bad Request: wrong file identifier/HTTP URL specified")
            caption = str(item.get("caption") or "")
            _within(caption, 1024, "Bad Request: message caption is too long")
            shown.append(self._add(chat, item["type"], caption, fields, media_group_id=group,
                                   file=files[name]))  # fmt: skip
        return shown

    def _found(self, fields: dict[str, Any], chat: int) -> Message:
        wanted = fields.get("message_id")
        for message in self.messages:
            if message.message_id == wanted and message.chat_id == chat:
                return message
        raise Refused(400, "Bad Request: message to edit not found")

    def _editMessageText(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        message = self._found(fields, chat)
        if message.kind != "text":
            raise Refused(400, "Bad Request: there is no text in the message to edit")
        return self._edited(message, str(fields.get("text") or ""), 4096)

    def _editMessageCaption(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        message = self._found(fields, chat)
        if message.kind == "text":
            raise Refused(400, "Bad Request: there is no caption in the message to edit")
        return self._edited(message, str(fields.get("caption") or ""), 1024)

    def _edited(self, message: Message, text: str, limit: int) -> Any:
        _within(text, limit, "Bad Request: MESSAGE_TOO_LONG")
        if text == message.text:
            raise Refused(400, NOT_MODIFIED)
        message.text = text
        return self._shown(message)

    def _deleteMessage(self, chat: int, fields: dict[str, Any], files: Any) -> Any:
        try:
            message = self._found(fields, chat)
        except Refused:
            raise Refused(400, "Bad Request: message to delete not found") from None
        self.messages.remove(message)
        return True

    def take_fault(self, method: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.method in ("", method) and fault.times > 0:
                    fault.times -= 1
                    return fault
        return None


def _within(text: str, limit: int, words: str) -> None:
    if len(text.encode("utf-16-le")) // 2 > limit:
        raise Refused(400, words)


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _read(content_type: str, raw: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """(fields, files) of a JSON, form or multipart body."""
    if content_type.startswith("application/json"):
        body = json.loads(raw or b"{}")
        return (body if isinstance(body, dict) else {}), {}
    if content_type.startswith("multipart/form-data"):
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields: dict[str, Any] = {}
        files: dict[str, tuple[str, bytes, str]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
            filename = part.get_filename()
            if filename is not None:
                files[str(name)] = (filename, data, part.get_content_type())
            else:
                fields[str(name)] = _json(data.decode())
        return fields, files
    form = parse_qs(raw.decode(), keep_blank_values=True)
    return {key: _json(values[-1]) for key, values in form.items()}, {}


class _Handler(BaseHTTPRequestHandler):
    owner: FakeTelegram

    def log_message(self, *_: Any) -> None:  # quiet: the test reads `calls`
        pass

    def do_GET(self) -> None:
        self._reply(405, {"ok": False, "error_code": 405, "description": "Method Not Allowed"})

    def do_POST(self) -> None:
        fake = self.owner
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        _, bot, method = self.path.split("/", 2)
        token = bot.removeprefix("bot")
        fields, files = _read(self.headers.get("content-type", ""), raw)
        fake.calls.append(Call(method, fields, files, token))
        fault = fake.take_fault(method)
        if fault is not None and fault.kind == "status":
            refused = Refused(fault.code, fault.description, fault.parameters)
            self._reply(fault.code, _refusal(refused))
            return
        try:
            body = {"ok": True, "result": fake.answer(token, method, fields, files)}
            status = 200
        except Refused as refused:
            body, status = _refusal(refused), refused.code
        if fault is not None and fault.kind == "late":
            time.sleep(fault.seconds)  # carried out; the client has given up meanwhile
        self._reply(status, body)

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up first
            pass


def _refusal(refused: Refused) -> dict[str, Any]:
    body: dict[str, Any] = {"ok": False, "error_code": refused.code,
                            "description": refused.description}  # fmt: skip
    if refused.parameters:
        body["parameters"] = refused.parameters
    return body
