"""A network that counts on its own side, across processes: for the publishing races.

`RecordingServer` is a tiny HTTP "network" on 127.0.0.1 run by the test; this module
is also a network module (`build`), which `serve` and `publish-due` processes get as
`racenet` in their Runtime (they run as `python -m tests.race_cli`). Their adapters
POST each publication to the account's service URL; the server records every call
per idempotency key and, like Mastodon, answers a key it has seen with the first
answer instead of posting again. `kill_on` makes the server SIGKILL the sending
process after it recorded the post and before it answers: a worker that dies after
the network accepted.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)

IDEMPOTENT = True  # the server dedupes on the key, as Mastodon does
DEFAULT_SERVICE_URL = "http://127.0.0.1:9"
DELAY_ENV = "RECORDING_NETWORK_DELAY"  # seconds each publish waits before sending


class RecordingServer:
    def __init__(self) -> None:
        self.sends: Counter[str] = Counter()  # calls per idempotency key
        self.created: dict[str, str] = {}  # key -> remote id (one per key at most)
        self.senders: Counter[int] = Counter()  # calls per sending pid
        self.sent_at: dict[str, float] = {}  # key -> time.time() of the first call
        self.kill_on: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = server.receive(body)
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a burst from three processes must not be refused
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> RecordingServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def receive(self, body: dict[str, Any]) -> dict[str, str]:
        key = str(body["key"])
        with self._lock:
            self.sends[key] += 1
            self.senders[int(body["pid"])] += 1
            self.sent_at.setdefault(key, time.time())
            remote = self.created.setdefault(key, f"rec-{len(self.created) + 1}")
            kill = key in self.kill_on
            self.kill_on.discard(key)
        if kill:  # accepted; the sender dies before it hears so
            os.kill(int(body["pid"]), signal.SIGKILL)
            time.sleep(0.5)
        return {"id": remote, "url": f"{self.url}/posts/{remote}"}


class RecordingAdapter:
    def __init__(self, credentials: AccountCredentials) -> None:
        self.network = credentials.network
        self._credentials = credentials

    def check(self) -> AccountIdentity:
        return AccountIdentity(handle=self._credentials.handle, display_name="Recorder")

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        return PreparedPost(network=self.network, parts=(PreparedPart(post.text),))

    def publish(self, post: OutgoingPost) -> Published:
        delay = float(os.environ.get(DELAY_ENV) or 0)
        if delay:
            time.sleep(delay)
        body = {"key": post.idempotency_key, "text": post.text, "pid": os.getpid()}
        request = urllib.request.Request(
            f"{self._credentials.service_url}/statuses",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                answer = json.loads(response.read())
        except OSError as error:
            raise PublishError(str(error), outcome_unknown=True) from None
        return Published(remote_id=answer["id"], url=answer["url"], part_ids=(answer["id"],))

    def metrics(self, published: Published) -> Metrics:
        return Metrics()


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> RecordingAdapter:
    return RecordingAdapter(credentials)
