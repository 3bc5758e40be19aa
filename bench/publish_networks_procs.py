"""The rigs of bench/publish_networks.py whose servers run as processes of their own
(see bench/publish_networks_rigs.py for what a rig is):

    Telegram  npm's telegram-test-api (tests/telegram_support.py) for the latency run;
              tests/fakes/telegram_media_server.py for the burst: Fault "late" (the
              message is sent, the answer comes after the client's timeout)
    Pixelfed  mastodon-mock (tests/mastodon_support.py) behind tests/pixelfed_support.py's
              proxy: lose_answers (the post is made, the connection closed unanswered)
    Nostr     PyPI's nostr-relay (tests/nostr_support.py), and for the burst a
              LostAnswers proxy in front of it that drops the OK of every Nth EVENT
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import threading
from contextlib import ExitStack
from typing import Any

from publish_networks_rigs import Ctx, Faults, Rig, add_connected

# --- Telegram ------------------------------------------------------------------------

LATENCY_CHAT = "-1001234567890"


def telegram_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    import pytest
    from tests.fakes.telegram_media_server import FakeTelegram, Fault
    from tests.telegram_support import HERE, TelegramEmulator, _free_port, _wait_ready, new_token

    from socialgen.publishing.networks.telegram import adapter as telegram

    if shutil.which("node") is None:
        raise RuntimeError("node is not installed (the emulator is an npm package)")
    if not (HERE / "node_modules" / "telegram-test-api").is_dir():
        raise RuntimeError("the emulator is not installed: cd tests/telegram && npm ci")
    port = _free_port()
    process = subprocess.Popen(
        ["node", "serve.js", str(port)],
        cwd=HERE,
        stdin=subprocess.PIPE,  # closed at the end: the emulator stops with it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    stack.callback(_stop_emulator, process)
    try:
        _wait_ready(process)
    except pytest.fail.Exception as failed:  # pytest's Failed: not an Exception
        raise RuntimeError(str(failed)) from None
    emulator = TelegramEmulator(f"http://127.0.0.1:{port}")
    token = new_token()
    latency = add_connected(ctx, "telegram", emulator.base_url, LATENCY_CHAT, token)

    faults = Faults()
    # The client's timeout: network_timeout, or a constant of the module's where it had one.
    waits = float(getattr(telegram, "REQUEST_TIMEOUT", ctx.timeout))
    late = waits + 1.5

    class BenchTelegram(FakeTelegram):
        def take_fault(self, method: str) -> Fault | None:
            if method == "sendMessage" and faults.take():
                return Fault("late", "sendMessage", seconds=late)
            return super().take_fault(method)

        def answer(self, token: str, method: str, fields: dict[str, Any], files: Any) -> Any:
            if method == "sendMessage":
                faults.note(str(fields.get("text", "")))
            return super().answer(token, method, fields, files)

    fake = stack.enter_context(BenchTelegram())
    burst = add_connected(ctx, "telegram", fake.base_url, f"@{fake.username}", fake.token)
    return Rig(
        "telegram",
        latency,
        burst,
        held=lambda: [*emulator.texts(token), *(m.text for m in fake.messages)],
        sent=lambda: [str(c.fields.get("text", "")) for c in fake.sent("sendMessage")],
        faults=faults,
        how=f"latency: telegram-test-api; burst: FakeTelegram, sendMessage carried out "
        f"and answered after {late:.1f} s (the client waits {waits:.1f} s)",
    )


def _stop_emulator(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- Pixelfed ------------------------------------------------------------------------


def pixelfed_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    from tests import mastodon_support
    from tests.pixelfed_support import PixelfedProxy

    workdir = ctx.home / "mastodon-mock"
    workdir.mkdir()
    mock = mastodon_support.start(workdir)
    stack.callback(mastodon_support.stop, mock.process)
    stack.callback(mock.close)
    user = mock.new_user("bench")
    faults = Faults()
    local = threading.local()
    captions: list[str] = []  # of every create call, refused ones too

    class BenchProxy(PixelfedProxy):
        def create_rule(
            self, token: str, key: str, form: dict[str, list[str]]
        ) -> tuple[int, Any] | None:
            local.caption = (form.get("status") or [""])[0]
            captions.append(local.caption)
            return super().create_rule(token, key, form)

        def take(self, name: str) -> bool:
            if name == "lose_answers":  # asked once the post is made
                if faults.take():
                    faults.note(str(getattr(local, "caption", "")))
                    return True
                return False
            return super().take(name)

    proxy = stack.enter_context(BenchProxy(mock.base_url))
    account = add_connected(ctx, "pixelfed", proxy.base_url, "", user.token)
    return Rig(
        "pixelfed",
        account,
        account,
        held=lambda: [_plain(str(status.get("content", ""))) for status in mock.statuses(user)],
        sent=lambda: list(captions),
        faults=faults,
        how="mastodon-mock behind PixelfedProxy; POST /api/v1/statuses made, then the "
        "connection closed unanswered (lose_answers)",
        media=True,
    )


def _plain(content: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", content)).strip()


# --- Nostr ---------------------------------------------------------------------------


def nostr_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    from tests import nostr_support
    from tests.nostr_support import LostAnswers, new_key
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import ClientConnection, connect
    from websockets.sync.server import ServerConnection

    workdir = ctx.home / "nostr-relay"
    workdir.mkdir()
    relay = nostr_support.start(workdir)
    stack.callback(nostr_support.stop, relay.process)
    faults = Faults()
    notes: dict[str, str] = {}  # every note sent, by id: the same note sent again is one

    class BenchLost(LostAnswers):
        """Loses the OK answer to every Nth EVENT: the relay stores the note."""

        dropping: set[str]

        def _handle(self, client: ServerConnection) -> None:
            with connect(self.upstream.url, proxy=None) as upstream:
                back = threading.Thread(target=self._back, args=(upstream, client), daemon=True)
                back.start()
                try:
                    for message in client:
                        if isinstance(message, str) and message.startswith('["EVENT"'):
                            event = json.loads(message)[1]
                            with self._lock:
                                self.events_seen += 1
                                notes[str(event.get("id"))] = str(event.get("content", ""))
                            if faults.take():
                                faults.note(str(event.get("content", "")))
                                with self._lock:
                                    self.dropping.add(str(event.get("id")))
                        upstream.send(message)
                except ConnectionClosed:
                    pass

        def _back(self, upstream: ClientConnection, client: ServerConnection) -> None:
            try:
                for message in upstream:
                    if isinstance(message, str) and message.startswith('["OK"'):
                        event_id = str(json.loads(message)[1])
                        with self._lock:
                            if event_id in self.dropping:
                                self.dropping.discard(event_id)
                                continue
                    client.send(message)
            except ConnectionClosed:
                pass

    lossy = BenchLost(relay, drop=0)
    lossy.dropping = set()
    stack.enter_context(lossy)
    first, second = new_key(), new_key()
    latency = add_connected(ctx, "nostr", relay.url, "", first.nsec)
    burst = add_connected(ctx, "nostr", lossy.url, "", second.nsec)
    return Rig(
        "nostr",
        latency,
        burst,
        held=lambda: [
            str(note.get("content", ""))
            for key in (first, second)
            for note in relay.notes_of(key.pubkey)
        ],
        sent=lambda: list(notes.values()),
        sent_again="other notes for a post already sent (the same note again is harmless)",
        faults=faults,
        how="nostr-relay (latency) and a LostAnswers proxy in front of it (burst): the "
        "relay stores the note, its OK answer is dropped",
    )
