"""The preview against the adapters themselves, on the real local servers the
publishing tests use (tests/networks_faces_support.py: X's, Threads' and Discord's
strict fakes, the Telegram emulator, a Nostr relay, Pixelfed through mastodon-mock):
an account connected over HTTP, a long post with a six-slide carousel, then the
publish endpoint's dry run (the adapter's `prepare`, with its credentials) and GET
.../preview for the same account. The preview's parts carry the same text and the
same media as what the adapter would send, and the preview sent nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from tests.conftest import BACKEND, Store
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.networks_faces_support import Rig
from tests.networks_faces_support import discord_rig as discord_rig  # the fixtures
from tests.networks_faces_support import nostr_rig as nostr_rig
from tests.networks_faces_support import pixelfed_rig as pixelfed_rig
from tests.networks_faces_support import telegram_rig as telegram_rig
from tests.networks_faces_support import threads_rig as threads_rig
from tests.networks_faces_support import x_rig as x_rig
from tests.nostr_support import nostr_relay as nostr_relay  # the session's relay
from tests.pixelfed_support import proxy as proxy  # one Pixelfed proxy for the module
from tests.telegram_support import telegram_emulator as telegram_emulator  # the session's
from tests.test_preview import carousel, long_post

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

ACCOUNTS = "/api/v1/social-accounts"
POSTS = "/api/v1/ai-conversation/post"
# Where each adapter's dry run lists the files a part carries.
MEDIA_KEYS = ("media", "images", "files")


@pytest.fixture(autouse=True)
def _servers_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "3")


def sent_media(details: dict[str, Any]) -> int:
    return sum(len(details.get(key) or []) for key in MEDIA_KEYS)


@pytest.mark.parametrize("network", ["x", "threads", "telegram", "discord", "nostr", "pixelfed"])
def test_the_preview_is_what_the_adapter_prepares(
    network: str, request: pytest.FixtureRequest, store: Store
) -> None:
    rig: Rig = request.getfixturevalue(f"{network}_rig")
    key = {"x-api-key": store.api_key()}
    # A post as long as a post may be (Pixelfed: one photo post, a short caption).
    text = long_post(seed=3, characters=2800) if network != "pixelfed" else rig.text
    post_id = store.post(text).id
    carousel(store, post_id, slides=6)
    with TestClient(create_app(Runtime())) as client:
        added = client.post(f"{ACCOUNTS}/{store.workspace_id}", json=rig.body, headers=key)
        assert added.status_code == 201, added.text
        account = added.json()["data"]["id"]
        dry = client.post(
            f"{POSTS}/{store.workspace_id}/{post_id}/publish",
            json={"accountIds": [account], "dryRun": True},
            headers=key,
        )
        shown = client.get(
            f"{POSTS}/{store.workspace_id}/{post_id}/preview", params={"to": account}, headers=key
        )
    assert dry.status_code == 200 and shown.status_code == 200, (dry.text, shown.text)
    (prepared,) = dry.json()["data"]["networks"]
    (preview,) = shown.json()["data"]["networks"]
    assert preview["accountId"] == account and preview["connected"] is True
    assert prepared.get("error") is None and preview["error"] is None, (prepared, preview)
    assert [p["text"] for p in preview["parts"]] == [p["text"] for p in prepared["parts"]]
    assert [len(p["media"]) for p in preview["parts"]] == [
        sent_media(p["details"]) for p in prepared["parts"]
    ]
    if network not in ("pixelfed", "nostr"):  # a post (3,000 at most) is one note
        assert len(preview["parts"]) > 1
    assert rig.sends() == 0 and rig.live() == []  # neither sent anything
