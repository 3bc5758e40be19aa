"""Hostile request bodies against a live server, measured: how long until the 4xx,
how long a small request on another connection waits meanwhile, how much the
server's memory grows. Shared by tests/test_hostile_bodies.py and
bench/hostile_bodies.py.

Bodies are generated as they are sent (a 100 MB string is never built in memory)
and sending stops as soon as the server answers, as an attacker's client would not,
but a well-behaved one does.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

MB = 1024 * 1024
TEMPLATES = "/api/v1/carousel/templates"
BOUNDARY = "hostileboundary7MA4YWxkTrZu0gW"


@dataclass(frozen=True)
class Hostile:
    """One hostile request: the body is a generator of chunks; `length` is sent as
    Content-Length, or None for chunked transfer encoding."""

    name: str
    method: str
    path: str
    headers: dict[str, str]
    chunks: Iterable[bytes]
    length: int | None


@dataclass(frozen=True)
class Figures:
    name: str
    status: int
    message: str
    seconds: float  # until the 4xx was in
    sent_mb: float  # how much of the body went out before it
    small_max_s: float  # the slowest small request meanwhile
    small_count: int
    small_usual_s: float  # the median small request before it (the machine's pace)
    rss_growth_mb: float  # peak resident size during the request, above the start


def repeat(block: bytes, total: int) -> Iterator[bytes]:
    """`total` bytes made of `block`, one block at a time."""
    sent = 0
    while sent < total:
        piece = block[: total - sent]
        sent += len(piece)
        yield piece


def json_array(total: int) -> tuple[Iterator[bytes], int]:
    """`[1,1,1,...]` of exactly `total` bytes (total odd)."""
    inner = total - 2  # "[" and "]"
    count = (inner + 1) // 2
    body_len = 2 + count * 2 - 1

    def chunks() -> Iterator[bytes]:
        yield b"["
        yield from repeat(b"1," * (MB // 2), (count - 1) * 2)
        yield b"1]"

    return chunks(), body_len


def json_under_field(name: str, total: int) -> tuple[Iterator[bytes], int]:
    """`{"<name>": "xxxx...", "userInput": "hi"}` of about `total` bytes."""
    head = f'{{"{name}": "'.encode()
    tail = b'", "userInput": "hi"}'
    filler = total - len(head) - len(tail)

    def chunks() -> Iterator[bytes]:
        yield head
        yield from repeat(b"x" * MB, filler)
        yield tail

    return chunks(), len(head) + filler + len(tail)


def form_of_parts(name: str, count: int) -> tuple[Iterator[bytes], int]:
    """`count` one-byte parts all named `name` (29 MB for 500,000)."""
    part = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\nx\r\n').encode()
    closing = f"--{BOUNDARY}--\r\n".encode()
    batch = 10_000

    def chunks() -> Iterator[bytes]:
        block = part * batch
        for start in range(0, count, batch):
            yield block if start + batch <= count else part * (count - start)
        yield closing

    return chunks(), len(part) * count + len(closing)


def form_of_files(
    fields: list[tuple[str, int]], text: dict[str, str] | None = None
) -> tuple[Iterator[bytes], int]:
    """A form with text fields and binary files: (field name, size) each."""
    head = b"".join(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        for key, value in (text or {}).items()
    )
    closing = f"--{BOUNDARY}--\r\n".encode()
    zeros = b"\x00\xff" * (MB // 2)  # binary: a file, not a text field

    def file_head(name: str) -> bytes:
        return (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{name}.png"\r\nContent-Type: image/png\r\n\r\n'
        ).encode()

    length = len(head) + len(closing) + sum(len(file_head(n)) + size + 2 for n, size in fields)

    def chunks() -> Iterator[bytes]:
        yield head
        for name, size in fields:
            yield file_head(name)
            yield from repeat(zeros, size)
            yield b"\r\n"
        yield closing

    return chunks(), length


# An early answer lets through at most what the sockets buffer; every body sent here
# to be refused early is 20 MB or more.
EARLY_MB = 10.0

FORM_TYPE = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}
JSON_TYPE = {"content-type": "application/json"}


def send_hostile(port: int, hostile: Hostile, timeout: float = 30) -> tuple[int, str, float, int]:
    """Send `hostile` until the server answers; (status, body, seconds, bytes sent)."""
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port))
    headers = {**hostile.headers, "host": f"127.0.0.1:{port}"}
    if hostile.length is None:
        headers["transfer-encoding"] = "chunked"
    else:
        headers["content-length"] = str(hostile.length)
    head = f"{hostile.method} {hostile.path} HTTP/1.1\r\n"
    head += "".join(f"{key}: {value}\r\n" for key, value in headers.items()) + "\r\n"
    sent = 0
    try:
        sock.sendall(head.encode())
        sock.setblocking(False)
        framed = _framed(hostile.chunks) if hostile.length is None else iter(hostile.chunks)
        answered = False
        for chunk in framed:
            view = memoryview(chunk)
            while view:
                readable, writable, _ = select.select([sock], [sock], [], timeout)
                if readable:
                    answered = True
                    break
                if not writable:
                    raise TimeoutError("the server neither read nor answered")
                try:
                    count = sock.send(view[: 4 * MB])
                except BlockingIOError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    answered = True  # closed on us: its answer is already in
                    break
                sent += count
                view = view[count:]
            if answered:
                break
        status, body = _read_answer(sock, started + timeout)
        return status, body, time.monotonic() - started, sent
    finally:
        sock.close()


def _framed(chunks: Iterable[bytes]) -> Iterator[bytes]:
    for chunk in chunks:
        if chunk:
            yield f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    yield b"0\r\n\r\n"


def _read_answer(sock: socket.socket, deadline: float) -> tuple[int, str]:
    sock.setblocking(True)
    data = b""
    while True:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            piece = sock.recv(65536)
        except ConnectionResetError:
            piece = b""
        if piece:
            data += piece
        head, _, body = data.partition(b"\r\n\r\n")
        if b"\r\n\r\n" in data:
            length = next(
                (
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                None,
            )
            if length is not None and len(body) >= length:
                break
        if not piece:
            break
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data.partition(b"\r\n\r\n")[2].decode("utf-8", "replace")


def status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


def reset_peak(pid: int) -> None:
    """Start VmHWM afresh (Linux 4.0+); the peak is then this request's."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _timed_small_request(base: str) -> float:
    began = time.monotonic()
    httpx.get(base + TEMPLATES, timeout=10).raise_for_status()
    return time.monotonic() - began


def measure(port: int, pid: int, hostile: Hostile) -> Figures:
    """Send `hostile` while another connection asks for the templates again and again."""
    base = f"http://127.0.0.1:{port}"
    latencies: list[float] = []
    done = threading.Event()

    def small_requests() -> None:
        with httpx.Client(base_url=base, timeout=10) as http:
            while True:
                began = time.monotonic()
                http.get(TEMPLATES).raise_for_status()
                latencies.append(time.monotonic() - began)
                if done.is_set():
                    return
                time.sleep(0.02)

    httpx.get(base + TEMPLATES, timeout=10).raise_for_status()  # warm
    usual = sorted(_timed_small_request(base) for _ in range(9))[4]
    before = status_mb(pid, "VmRSS")
    reset_peak(pid)
    poller = threading.Thread(target=small_requests, daemon=True)
    poller.start()
    try:
        status, body, seconds, sent = send_hostile(port, hostile)
    finally:
        done.set()
        poller.join(timeout=15)
    peak = status_mb(pid, "VmHWM")
    return Figures(
        name=hostile.name,
        status=status,
        message=body,
        seconds=seconds,
        sent_mb=sent / MB,
        small_max_s=max(latencies, default=float("inf")),
        small_count=len(latencies),
        small_usual_s=usual,
        rss_growth_mb=max(0.0, peak - before),
    )


@dataclass(frozen=True)
class Case:
    hostile: Hostile
    status: int
    message: str  # a part of the 4xx's message
    # How much of the body may go out before the answer: the server stops reading at
    # its cap, so only what the sockets buffer gets through (about 3 MB on loopback);
    # a server that reads the whole body to refuse it lets all of it through. None:
    # the server must read this one whole to judge it (its memory is what is bounded).
    read_mb: float | None


def issue_cases(workspace_id: str, key: str) -> list[Case]:
    """The hostile requests of issue 19, as the review sent them (fresh generators)."""
    ai = "/api/v1/ai-conversation"
    with_key = {"x-api-key": key}
    array, array_len = json_array(20 * MB + 1)
    unknown, _ = json_under_field("unknownField", 20 * MB)
    string, string_len = json_under_field("userInput2", 100 * MB)
    parts, parts_len = form_of_parts("prompt", 500_000)
    parts2, parts2_len = form_of_parts("prompt", 500_000)
    files, files_len = form_of_files(
        [("referenceImages", 8 * MB - 4096)] * 8, text={"prompt": "a lighthouse"}
    )
    return [
        Case(
            Hostile(
                "20 MB JSON array, no key, chunked",
                "POST",
                f"{ai}/generate-post/{workspace_id}",
                JSON_TYPE,
                array,
                None,
            ),
            401,
            "API key required",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "20 MB JSON array, no key, Content-Length",
                "PUT",
                f"{ai}/post/{workspace_id}/p1",
                JSON_TYPE,
                json_array(20 * MB + 1)[0],
                array_len,
            ),
            401,
            "API key required",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "20 MB under an unknown field, with a key, chunked",
                "POST",
                f"{ai}/generate-post/{workspace_id}",
                {**JSON_TYPE, **with_key},
                unknown,
                None,
            ),
            413,
            "The JSON body is larger than 256 KB",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "100 MB string, with a key, Content-Length",
                "POST",
                f"{ai}/chat/{workspace_id}",
                {**JSON_TYPE, **with_key},
                string,
                string_len,
            ),
            413,
            "The JSON body is larger than 256 KB",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "500,000 one-byte prompt parts (29 MB) to generate-with-images",
                "POST",
                f"/api/v1/carousel/generate-with-images/{workspace_id}",
                {**FORM_TYPE, **with_key},
                parts,
                parts_len,
            ),
            400,
            "The form field `prompt` is sent more than once",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "500,000 one-byte prompt parts (29 MB) to the calendar",
                "POST",
                f"/api/v1/content-calendar/generate/{workspace_id}",
                {**FORM_TYPE, **with_key},
                parts2,
                parts2_len,
            ),
            413,
            "The form is larger than 10.25 MB",
            EARLY_MB,
        ),
        Case(
            Hostile(
                "64 MB multipart (8 files of 8 MB) to generate-with-images",
                "POST",
                f"/api/v1/carousel/generate-with-images/{workspace_id}",
                {**FORM_TYPE, **with_key},
                files,
                files_len,
            ),
            400,
            "At most 5 reference images",
            None,
        ),
    ]
