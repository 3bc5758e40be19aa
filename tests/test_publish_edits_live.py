"""Issue 25, 3, on mastodon-mock's real process: the instance creates the status and
the answer is lost (a 500 from a small fault proxy on 127.0.0.1 in front of it, which
forwards the request first), then `posts edit`, then `publish-due`. The edit is
refused until the retry has run, and the retry reports `published` with the text that
is live (the Idempotency-Key replay returns the first status). Before the fix the edit
went through and the publication said `published` beside the new text while only the
old one was on Mastodon.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from socialgen.clock import parse_iso
from socialgen.store.engine import read_session
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture
from tests.test_publish_end_to_end import at, mock_texts, wait_until

ORIGINAL = "Shipping weekly: the text that went out first."
EDITED = "Shipping weekly: the text edited while the retry waited."
_HOP = {"host", "content-length", "transfer-encoding", "connection"}


class LostAnswerProxy:
    """Forwards every request to the instance; the next `lose` status creations are
    forwarded and then answered 500 (Retry-After: 1) instead of the instance's 200."""

    def __init__(self, upstream: str) -> None:
        self.lose = 0
        self.lost = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                answer = httpx.request(
                    self.command, upstream + self.path, headers=headers, content=body, timeout=30
                )
                creating = self.command == "POST" and self.path.startswith("/api/v1/statuses")
                if creating and proxy.lose > 0:
                    proxy.lose -= 1
                    proxy.lost += 1
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


def test_an_edit_between_a_lost_answer_and_its_retry_is_refused(
    store: Store, mastodon_mock: MastodonMock, proxy: LostAnswerProxy, witness: Witness
) -> None:
    user = mastodon_mock.new_user("edit")
    witness.secret(user.token)
    added = witness.cli_json(
        "accounts", "add", "mastodon", "--instance", proxy.url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    account = str(added["id"])
    post = store.post(ORIGINAL)
    due = at(1)
    witness.cli_json("posts", "schedule", post.id, "--at", due, "--to", account)
    wait_until(due)
    proxy.lose = 1

    first = witness.cli_json("publish-due", code=None)
    assert (first["published"], first["retrying"]) == (0, 1), first
    assert proxy.lost == 1 and mock_texts(mastodon_mock, user) == [ORIGINAL]  # live already

    refused = witness.cli("posts", "edit", post.id, "--content", EDITED, code=1)
    said = re.sub(r"\s+", " ", refused.output)
    assert "Cannot edit the post now" in said and "socialgen publish-due" in said, said
    assert witness.cli_json("posts", "show", post.id)["postContent"] == ORIGINAL

    (row,) = witness.cli_json("posts", "publications", post.id)["publications"]
    assert row["state"] == "queued" and row["nextAttemptAt"], row
    wait_until(row["nextAttemptAt"])
    assert parse_iso(row["nextAttemptAt"])  # Retry-After: 1 was honoured
    second = witness.cli_json("publish-due")
    assert second["published"] == 1, second
    (done,) = witness.cli_json("posts", "publications", post.id)["publications"]
    assert done["state"] == "published" and done["message"] == ""
    assert mock_texts(mastodon_mock, user) == [ORIGINAL]  # one status, the replay's
    status = mastodon_mock.status(done["remoteId"])
    assert ORIGINAL in status["content"]
    shown = witness.cli_json("posts", "show", post.id)
    assert shown["postContent"] == ORIGINAL and shown["status"] == "published"
    with read_session(store.engine) as session:
        stored = session.get(Publication, done["id"])
        assert stored is not None and stored.options["sent_text"] == ORIGINAL
    witness.stored_secrets(store)
