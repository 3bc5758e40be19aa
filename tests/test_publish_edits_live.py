"""Issue 25, 3, on mastodon-mock's real process and the real Bluesky PDS: the network
creates the post and the answer is lost (a 500 from a small fault proxy on 127.0.0.1
in front of it, which forwards the request first), then `posts edit`, then
`publish-due`. The edit is refused until the retry has run, and the retry reports
`published` with the text that is live (Mastodon's Idempotency-Key replay returns the
first status; on Bluesky the record key is found taken). Before the fix the edit went
through and the publication said `published` beside the new text while only the old
one was on the network. The Bluesky test starts the dev network: run it under
`flock /tmp/bluesky.lock`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from socialgen.store.engine import read_session
from socialgen.store.tables import Publication
from tests.bluesky_support import BlueskyNetwork
from tests.bluesky_support import bluesky_network_fixture as bluesky_network_fixture  # fixture
from tests.conftest import Store
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture
from tests.test_publish_end_to_end import at, mock_texts, records, wait_until

ORIGINAL = "Shipping weekly: the text that went out first."
EDITED = "Shipping weekly: the text edited while the retry waited."
_HOP = {"host", "content-length", "transfer-encoding", "connection"}


class LostAnswerProxy:
    """Forwards every request to the server; the next `lose` POSTs to `creating` (a
    path prefix) are forwarded and then answered 500 (Retry-After: 1) instead of the
    server's 200. With `reading`, the first request to that prefix after a lost answer
    is answered 500 without being forwarded (the server is still down: a client that
    reads its write back cannot tell either)."""

    def __init__(
        self, upstream: str, creating: str = "/api/v1/statuses", reading: str | None = None
    ) -> None:
        self.lose = 0
        self.lost = 0
        self.down = False
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if proxy.down and reading and self.path.startswith(reading):
                    proxy.down = False
                    self._answer(500, {"Retry-After": "1"}, b'{"error":"InternalServerError"}')
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                answer = httpx.request(
                    self.command, upstream + self.path, headers=headers, content=body, timeout=30
                )
                made = self.command == "POST" and self.path.startswith(creating)
                if made and proxy.lose > 0:
                    proxy.lose -= 1
                    proxy.lost += 1
                    proxy.down = reading is not None
                    self._answer(500, {"Retry-After": "1"}, b'{"error":"Internal Server Error"}')
                    return
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
                kept.pop("content-encoding", None)  # httpx decoded the body
                self._answer(answer.status_code, kept, answer.content)

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Type", headers.get("content-type", "application/json"))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(
    mastodon_mock: MastodonMock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LostAnswerProxy]:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")  # both live on 127.0.0.1
    running = LostAnswerProxy(mastodon_mock.base_url)
    yield running
    running.close()


def lose_the_first_answer_then_edit(
    witness: Witness, store: Store, proxy: LostAnswerProxy, account: str
) -> str:
    """Schedule ORIGINAL, lose the answer to its creation, try to edit; the post's id."""
    post = store.post(ORIGINAL)
    due = at(1)
    witness.cli_json("posts", "schedule", post.id, "--at", due, "--to", account)
    wait_until(due)
    proxy.lose = 1
    first = witness.cli_json("publish-due", code=None)
    assert (first["published"], first["retrying"]) == (0, 1), first
    assert proxy.lost == 1
    refused = witness.cli("posts", "edit", post.id, "--content", EDITED, code=1)
    said = re.sub(r"\s+", " ", refused.output)
    assert "Cannot edit the post now" in said and "socialgen publish-due" in said, said
    assert witness.cli_json("posts", "show", post.id)["postContent"] == ORIGINAL
    (row,) = witness.cli_json("posts", "publications", post.id)["publications"]
    assert row["state"] == "queued" and row["nextAttemptAt"], row
    wait_until(row["nextAttemptAt"])
    second = witness.cli_json("publish-due")
    assert second["published"] == 1, second
    return post.id


def test_an_edit_between_a_lost_answer_and_its_retry_is_refused(
    store: Store, mastodon_mock: MastodonMock, proxy: LostAnswerProxy, witness: Witness
) -> None:
    user = mastodon_mock.new_user("edit")
    witness.secret(user.token)
    added = witness.cli_json(
        "accounts", "add", "mastodon", "--instance", proxy.url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    post_id = lose_the_first_answer_then_edit(witness, store, proxy, str(added["id"]))
    (done,) = witness.cli_json("posts", "publications", post_id)["publications"]
    assert done["state"] == "published" and done["message"] == ""
    assert mock_texts(mastodon_mock, user) == [ORIGINAL]  # one status, the replay's
    status = mastodon_mock.status(done["remoteId"])
    assert ORIGINAL in status["content"]
    shown = witness.cli_json("posts", "show", post_id)
    assert shown["postContent"] == ORIGINAL and shown["status"] == "published"
    with read_session(store.engine) as session:
        stored = session.get(Publication, done["id"])
        assert stored is not None and stored.options["sent_text"] == ORIGINAL
    witness.stored_secrets(store)


def test_an_edit_between_a_lost_answer_and_its_retry_is_refused_on_bluesky(
    store: Store, bluesky_network: BlueskyNetwork, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    proxy = LostAnswerProxy(
        bluesky_network.pds,
        creating="/xrpc/com.atproto.repo.createRecord",
        reading="/xrpc/com.atproto.repo.getRecord",
    )
    try:
        person = bluesky_network.account("edit")
        witness.secret(person.app_password, person.password)
        added = witness.cli_json(
            "accounts", "add", "bluesky", person.handle, "--service", proxy.url,
            "--password-stdin", stdin=person.app_password + "\n",
        )  # fmt: skip
        witness.stored_secrets(store)
        post_id = lose_the_first_answer_then_edit(witness, store, proxy, str(added["id"]))
    finally:
        proxy.close()
    (record,) = records(bluesky_network, person)
    assert record.value.text == ORIGINAL
    (done,) = witness.cli_json("posts", "publications", post_id)["publications"]
    assert done["state"] == "published" and done["remoteId"] == record.uri
    with read_session(store.engine) as session:
        stored = session.get(Publication, done["id"])
        assert stored is not None and stored.options["sent_text"] == ORIGINAL
