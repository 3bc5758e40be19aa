"""The six networks added after Bluesky, Mastodon and LinkedIn (X, Threads, Telegram,
Discord, Nostr, Pixelfed) end to end through the two faces their own tests do not
drive: the HTTP API (POST social-accounts with the secret, then publish) and MCP over
/mcp with the SDK's client (add_account, then publish_post). The app runs with the
built-in network table (no module handed in), so this is also the registry's wiring.
Each post is read back on the server's side (tests/networks_faces_support.py): there
once, and not again after a second publish. Every test ends with the witness's check
(tests/publish_e2e_support.py): no secret in any answer or log record."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from tests.conftest import BACKEND, Store, serving
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.mcp_support import error_of, http_session, run, structured, text_of
from tests.networks_faces_support import NETWORKS, Rig
from tests.networks_faces_support import discord_rig as discord_rig  # the fixtures
from tests.networks_faces_support import nostr_rig as nostr_rig
from tests.networks_faces_support import pixelfed_rig as pixelfed_rig
from tests.networks_faces_support import telegram_rig as telegram_rig
from tests.networks_faces_support import threads_rig as threads_rig
from tests.networks_faces_support import x_rig as x_rig
from tests.nostr_support import nostr_relay as nostr_relay  # the session's relay
from tests.pixelfed_support import proxy as proxy  # one Pixelfed proxy for the module
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture
from tests.telegram_support import telegram_emulator as telegram_emulator  # the session's

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

ACCOUNTS = "/api/v1/social-accounts"
POSTS = "/api/v1/ai-conversation/post"


@pytest.fixture(autouse=True)
def _servers_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1 (the SSRF guard lets them through); a short
    network timeout. Read by each Runtime the tests build after this."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "3")


@pytest.fixture
def _client_logs_quiet(caplog: pytest.LogCaptureFixture) -> None:
    """The SDK's MCP client logs each message it sends at DEBUG, the secret handed to
    add_account with it: that is the test's side talking, not socialgen. The server's
    loggers (mcp.server.*, socialgen.*) stay at DEBUG for the witness."""
    caplog.set_level(logging.INFO, logger="mcp.client")


def rig_of(request: pytest.FixtureRequest, network: str) -> Rig:
    rig: Rig = request.getfixturevalue(f"{network}_rig")
    return rig


def said(
    witness: Witness, client: TestClient, path: str, body: dict[str, Any], key: dict[str, str]
) -> Any:
    """POST `body` to `path` with the key; the witness keeps the answer."""
    answer = client.post(path, json=body, headers=key)
    witness.saw(f"HTTP POST {path}", answer.text)
    return answer


def owner_key(store: Store, witness: Witness, rig: Rig) -> dict[str, str]:
    """A key bound to the workspace (it may add accounts), and the secrets to watch."""
    key = store.api_key()
    witness.secret(key, rig.secret, *([rig.wrong_secret] if rig.wrong_secret else []))
    return {"x-api-key": key}


@pytest.mark.parametrize("network", NETWORKS)
def test_an_account_is_added_and_published_to_over_http(
    network: str, request: pytest.FixtureRequest, store: Store, witness: Witness
) -> None:
    rig = rig_of(request, network)
    key = owner_key(store, witness, rig)
    publish = f"{POSTS}/{store.workspace_id}/{rig.make_post(store)}/publish"
    with TestClient(create_app(Runtime())) as client:
        added = said(witness, client, f"{ACCOUNTS}/{store.workspace_id}", rig.body, key)
        assert added.status_code == 201, added.text
        view = added.json()["data"]
        assert view["network"] == network and view["handle"].startswith(rig.handle), view
        assert rig.secret not in added.text and "secret" not in view
        witness.stored_secrets(store)  # the tokens socialgen keeps are watched too
        to_it = {"accountIds": [view["id"]]}
        first = said(witness, client, publish, to_it, key)
        again = said(witness, client, publish, to_it, key)
    assert first.status_code == 200, first.text
    (row,) = first.json()["data"]["publications"]
    assert (row["state"], row["network"], row["accountId"]) == ("published", network, view["id"])
    assert row["remoteId"] and row["url"], row
    assert again.status_code == 200, again.text
    assert [r["id"] for r in again.json()["data"]["publications"]] == [row["id"]]
    assert rig.live() == [rig.text]  # on the server once: the second publish sent nothing
    assert rig.sends() == 1


def test_a_dry_run_over_http_refuses_a_text_only_post_to_pixelfed_and_sends_nothing(
    request: pytest.FixtureRequest, store: Store, witness: Witness
) -> None:
    rig = rig_of(request, "pixelfed")
    key = owner_key(store, witness, rig)
    publish = f"{POSTS}/{store.workspace_id}/{store.post('Words only, no picture.').id}/publish"
    with TestClient(create_app(Runtime())) as client:
        added = said(witness, client, f"{ACCOUNTS}/{store.workspace_id}", rig.body, key)
        assert added.status_code == 201, added.text
        account = added.json()["data"]["id"]
        dry = said(witness, client, publish, {"accountIds": [account], "dryRun": True}, key)
    assert dry.status_code == 200, dry.text
    data = dry.json()["data"]
    (preview,) = data["networks"]
    assert data["publications"] == [] and preview["accountId"] == account
    assert preview["network"] == "pixelfed" and preview["parts"] == []
    assert "Pixelfed needs an image" in preview["error"], preview
    assert rig.sends() == 0 and rig.live() == []


@pytest.mark.parametrize("network", ["x", "nostr"])
@pytest.mark.usefixtures("_client_logs_quiet")
def test_an_mcp_client_adds_the_account_and_publishes_through_it(
    network: str, request: pytest.FixtureRequest, store: Store, witness: Witness
) -> None:
    rig = rig_of(request, network)
    headers = owner_key(store, witness, rig)
    post_id = rig.make_post(store)

    async def body(base_url: str) -> dict[str, Any]:
        async with http_session(base_url, headers) as mcp:
            refused = await mcp.call_tool("add_account", rig.with_secret(rig.wrong_secret))
            added = await mcp.call_tool("add_account", rig.body)
            account = structured(added)["id"]
            published = await mcp.call_tool(
                "publish_post", {"postId": post_id, "accountIds": [account]}
            )
            again = await mcp.call_tool(
                "publish_post", {"postId": post_id, "accountIds": [account]}
            )
            listed = await mcp.call_tool("list_accounts", {})
            return {"refused": refused, "added": added, "published": published,
                    "again": again, "listed": listed}  # fmt: skip

    with serving(create_app(Runtime())) as server:
        seen = run(lambda: body(server.base_url))
    for name, result in seen.items():
        witness.saw(f"MCP {name}", text_of(result) + repr(result.structured_content))
    assert rig.wrong_secret not in error_of(seen["refused"])  # refused, not echoed
    added = structured(seen["added"])
    assert added["network"] == network and added["handle"].startswith(rig.handle), added
    assert rig.secret not in text_of(seen["added"]) and "secret" not in added
    (row,) = structured(seen["published"])["publications"]
    assert (row["state"], row["accountId"]) == ("published", added["id"]), row
    assert structured(seen["again"])["publications"][0]["state"] == "published"
    assert [a["id"] for a in structured(seen["listed"])["accounts"]] == [added["id"]]
    assert rig.live() == [rig.text] and rig.sends() == 1  # once, on the server's side
