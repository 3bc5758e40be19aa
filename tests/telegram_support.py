"""The Telegram Bot API emulator (npm's telegram-test-api 4.2.1, pinned in
tests/telegram/package-lock.json), run once per test session as its own Node process
on a free 127.0.0.1 port.

It serves a bot's sendMessage, editMessageText, deleteMessage and getMe (any token is
a bot; getMe is always @TestNameBot, id 666) and answers every other method 500 "API
method '...' is not supported" (getChat, getChatMember, the media methods: those are
tests/fakes/telegram_media_server.py's). What a bot sent is read back through the
emulator's own client API, POST /getUpdatesHistory {token}: each message as the bot
sent it (its fields, `reply_parameters` included) with the id the emulator gave it.
Its ids are global, not per chat; `chat_id` should be numeric (it answers
`Number(chat_id)` as the chat's id). Its edits answer `result: null`, and a message
it does not have is still "edited".

Install once: `cd tests/telegram && npm ci`.
"""

from __future__ import annotations

import itertools
import os
import select
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

HERE = Path(__file__).resolve().parent / "telegram"
START_SECONDS = 30.0
_tokens = itertools.count(100001)


def new_token() -> str:
    """A bot token of @BotFather's shape, new for each test (the emulator keeps every
    bot's messages apart by token)."""
    return f"{next(_tokens)}:AAH{'x' * 28}Q9_-"


@dataclass(frozen=True)
class Sent:
    message_id: int
    fields: dict[str, Any]  # what the bot sent: chat_id, text, reply_parameters ...


@dataclass(frozen=True)
class TelegramEmulator:
    base_url: str

    def sent(self, token: str) -> list[Sent]:
        """The messages the bot `token` has in the emulator now, oldest first (deleted
        ones are gone; an edit shows its new text)."""
        answer = httpx.post(f"{self.base_url}/getUpdatesHistory", json={"token": token})
        answer.raise_for_status()
        return [
            Sent(int(update["messageId"]), dict(update["message"]))
            for update in answer.json()["result"]
            if "chat_id" in update.get("message", {})  # the bot's, not a user's
        ]

    def texts(self, token: str) -> list[str]:
        return [str(message.fields.get("text")) for message in self.sent(token)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def telegram_emulator() -> Iterator[TelegramEmulator]:
    if not (HERE / "node_modules" / "telegram-test-api").is_dir():
        missing = "the Telegram emulator is not installed: run `cd tests/telegram && npm ci`"
        if os.environ.get("SOCIALGEN_REQUIRE_TELEGRAM"):  # .ci/run: never skip
            pytest.fail(missing)
        pytest.skip(missing)
    port = _free_port()
    process = subprocess.Popen(
        ["node", "serve.js", str(port)],
        cwd=HERE,
        stdin=subprocess.PIPE,  # closed at the end: the emulator stops with it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_ready(process)
        yield TelegramEmulator(f"http://127.0.0.1:{port}")
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(process: subprocess.Popen[bytes]) -> None:
    assert process.stdout is not None
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            if line.strip() == b"ready":
                return
            if not line:  # it ended
                break
        if process.poll() is not None:
            break
    process.kill()
    _, errors = process.communicate(timeout=10)
    pytest.fail(f"the Telegram emulator did not start: {errors.decode(errors='replace')[-2000:]}")
