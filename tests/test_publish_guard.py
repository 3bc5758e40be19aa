"""The SSRF guard on every request of every network client, at use (guarded_http.py).

Two ways a stored account could reach an internal service: its server starts
answering with redirects to one (the clients followed them, re-sending the app
password and handing the internal answer back in the error message), or its host
turns private after the account was added (DNS rebinding; the guard only ran at
`accounts add`). Here a loopback "internal service" records whatever reaches it, a
redirector sends every request there, and the allowance for private addresses is
switched off after an account was added. Every test ends with the witness's check
that no secret showed anywhere (tests/publish_e2e_support.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests

from socialgen.publishing.networks.base import brief
from socialgen.publishing.networks.guarded_http import (
    GuardRefused,
    guarded_httpx,
    guarded_session,
)
from socialgen.publishing.networks.linkedin import client as linkedin_http
from socialgen.publishing.networks.mastodon import oauth as mastodon_oauth
from socialgen.publishing.secrets import encrypt_secret
from socialgen.sources import guard
from socialgen.sources.guard import ALLOW_PRIVATE_ENV
from socialgen.store.engine import transaction
from socialgen.store.tables import SocialAccount
from tests.bluesky_support import token
from tests.conftest import Store
from tests.guard_support import (
    INTERNAL_TEXT,
    Hit,
    Internal,
    Redirector,
    self_signed,
    serve_tls,
)
from tests.guard_support import internal_fixture as internal_fixture  # the fixture
from tests.guard_support import redirector_fixture as redirector_fixture  # the fixture
from tests.keys_support import keys_now
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

APP_PASSWORD = "app-pass-guard-4kq9-secret"
ACCESS_TOKEN = "access-token-guard-7Yw2-secret"


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1: allowed, until a test turns it off."""
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    monkeypatch.setenv("COLUMNS", "200")


def stored(store: Store, network: str, service_url: str, handle: str = "@me") -> str:
    """An account as `accounts add` leaves it (added while its server passed)."""
    secrets = {
        "bluesky": {
            "app_password": APP_PASSWORD,
            "access_jwt": token(),
            "refresh_jwt": token(),
            "did": "did:plc:faulty",
        },
        "mastodon": {"access_token": ACCESS_TOKEN, "client_id": "", "client_secret": ""},
        "linkedin": {"access_token": ACCESS_TOKEN},
    }[network]
    with transaction(store.engine) as session:
        account = SocialAccount(
            workspace_id=store.workspace_id,
            network=network,
            handle=handle,
            display_name="Me",
            service_url=service_url,
            secret_ciphertext=encrypt_secret(secrets, session, keys_now()),
        )
        session.add(account)
        session.flush()
        return account.id


def publish(w: Witness, post_id: str, account: str) -> dict[str, Any]:
    answer = w.cli_json("posts", "publish", post_id, "--to", account, code=None)
    (row,) = answer["publications"]
    return dict(row)


def said(w: Witness) -> str:
    return "\n".join(text for _, text in w.said)


def never_reached(internal: Internal, w: Witness) -> None:
    assert internal.hits == [], [f"{hit.method} {hit.path}" for hit in internal.hits]
    assert INTERNAL_TEXT not in said(w)


# --- redirects -------------------------------------------------------------------------


def test_bluesky_sign_in_is_not_redirected_with_the_app_password(
    store: Store, redirector: Redirector, internal: Internal, witness: Witness
) -> None:
    witness.secret(APP_PASSWORD)
    result = witness.cli(
        "accounts", "add", "bluesky", "alice.test", "--service", redirector.url,
        "--password-stdin", stdin=APP_PASSWORD + "\n", code=None,
    )  # fmt: skip
    assert result.exit_code != 0
    assert "redirect refused" in result.output and "(307)" in result.output
    assert [hit.path for hit in redirector.hits] == ["/xrpc/com.atproto.server.createSession"]
    never_reached(internal, witness)
    assert not internal.received(APP_PASSWORD)


def test_a_bluesky_account_whose_pds_starts_redirecting(
    store: Store, redirector: Redirector, internal: Internal, witness: Witness
) -> None:
    witness.secret(APP_PASSWORD)
    account = stored(store, "bluesky", redirector.url, "@alice.test")
    witness.stored_secrets(store)

    checked = witness.cli("accounts", "check", account, code=None)
    assert checked.exit_code != 0 and "redirect refused" in checked.output
    row = publish(witness, store.post("Shipping weekly.").id, account)
    assert row["state"] == "failed", row  # not retried: the answer will not change
    assert "redirect refused" in row["message"]
    assert redirector.hits, "the PDS was asked"
    never_reached(internal, witness)


def test_a_mastodon_instance_that_redirects(
    store: Store, redirector: Redirector, internal: Internal, witness: Witness
) -> None:
    witness.secret(ACCESS_TOKEN)
    account = stored(store, "mastodon", redirector.url, "@me@example.test")

    checked = witness.cli("accounts", "check", account, code=None)
    assert checked.exit_code != 0 and "redirect refused" in checked.output
    row = publish(witness, store.post("Shipping weekly.").id, account)
    assert row["state"] == "failed" and "redirect refused" in row["message"], row
    never_reached(internal, witness)
    assert not internal.received(ACCESS_TOKEN)


def test_linkedin_that_redirects(
    store: Store, redirector: Redirector, internal: Internal, witness: Witness
) -> None:
    witness.secret(ACCESS_TOKEN)
    account = stored(store, "linkedin", redirector.url, "urn:li:person:abc")

    checked = witness.cli("accounts", "check", account, code=None)
    assert checked.exit_code != 0 and "redirect refused" in checked.output
    row = publish(witness, store.post("Shipping weekly.").id, account)
    assert row["state"] == "failed" and "redirect refused" in row["message"], row
    never_reached(internal, witness)
    assert not internal.received(ACCESS_TOKEN)


def test_the_oauth_flows_refuse_redirects(redirector: Redirector, internal: Internal) -> None:
    with pytest.raises(GuardRefused, match="redirect refused"):
        mastodon_oauth.register_app(
            redirector.url, "http://127.0.0.1:1/callback", allow_private=True
        )
    form = {"grant_type": "refresh_token", "client_secret": "client-secret-guard-1"}
    with pytest.raises(GuardRefused, match="redirect refused"):
        linkedin_http.token_request(
            redirector.url, form, {}, what="refreshing", timeout=10.0, allow_private=True
        )
    assert internal.hits == []


def test_a_long_error_text_from_a_server_is_cut_short(
    store: Store, internal: Internal, witness: Witness
) -> None:
    """A server's own error words are shown, one short line of them: never a page."""
    internal.answer = {"error": "Odd", "message": "first line\n" + "x" * 5000}
    witness.secret(APP_PASSWORD)
    result = witness.cli(
        "accounts", "add", "bluesky", "alice.test", "--service", internal.url,
        "--password-stdin", stdin=APP_PASSWORD + "\n", code=None,
    )  # fmt: skip
    assert result.exit_code != 0 and "400 Odd: first line x" in result.output
    assert "x" * 300 not in result.output.replace("\n", "")
    assert brief("a\x00b\u202ec\n" + "y" * 500, 20) == "a b c yyyyyyyyyyyyy…"


# --- the guard at use ------------------------------------------------------------------


@pytest.fixture
def mastodon(mastodon_mock: MastodonMock) -> Iterator[MastodonMock]:
    yield mastodon_mock
    mastodon_mock.clear_faults()


def test_an_account_added_while_allowed_is_refused_at_use(
    store: Store, mastodon: MastodonMock, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = mastodon.new_user("guard")
    witness.secret(user.token)
    added = witness.cli_json(
        "accounts", "add", "mastodon", "--instance", mastodon.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    account = str(added["id"])
    published = store.post("Out while the instance was allowed.")
    assert publish(witness, published.id, account)["state"] == "published"

    monkeypatch.delenv(ALLOW_PRIVATE_ENV)  # the same host is private now
    checked = witness.cli("accounts", "check", account, code=None)
    assert checked.exit_code != 0 and "loopback" in checked.output
    row = publish(witness, store.post("Refused now.").id, account)
    assert row["state"] == "failed", row
    assert "URL not allowed: 127.0.0.1 is a loopback address" in row["message"]
    preview = store.post("A preview, refused too.")
    dry = witness.cli_json("posts", "publish", preview.id, "--to", account, "--dry-run")
    assert "URL not allowed" in dry["networks"][0]["error"]
    stats = witness.cli_json("posts", "stats", published.id, "--refresh")
    (counted,) = stats["posts"][0]["publications"]
    assert "URL not allowed" in counted["note"]
    assert mastodon.status_count(user) == 1  # nothing else went out


@pytest.mark.parametrize("network", ["bluesky", "linkedin"])
def test_bluesky_and_linkedin_accounts_are_refused_at_use(
    store: Store,
    internal: Internal,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
    network: str,
) -> None:
    witness.secret(APP_PASSWORD, ACCESS_TOKEN)
    account = stored(store, network, internal.url, "@alice.test")
    monkeypatch.delenv(ALLOW_PRIVATE_ENV)

    row = publish(witness, store.post("Shipping weekly.").id, account)
    assert row["state"] == "failed", row
    assert "URL not allowed: 127.0.0.1 is a loopback address" in row["message"]
    preview = store.post("A preview.")
    dry = witness.cli_json("posts", "publish", preview.id, "--to", account, "--dry-run")
    assert "URL not allowed" in dry["networks"][0]["error"]
    never_reached(internal, witness)


# --- the connection goes to the checked address ---------------------------------------


def test_a_request_connects_to_the_address_the_guard_checked(
    internal: Internal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pds.example` resolves (for the guard) to 127.0.0.1 only: the request reaches
    the loopback server under its own name, so no second DNS answer was used; and
    when the name turns private without the allowance, nothing is sent."""
    port = internal.url.rsplit(":", 1)[1]
    monkeypatch.setattr(guard, "resolve", lambda host, port: ["127.0.0.1"])
    url = f"http://pds.example:{port}/xrpc/ping"
    with guarded_httpx("Test", allow_private=True) as client:
        assert client.get(url).status_code == 400
    assert guarded_session("Test", allow_private=True).get(url).status_code == 400
    assert [hit.headers.get("Host") for hit in internal.hits] == [f"pds.example:{port}"] * 2

    refusing = guarded_httpx("Test", allow_private=False)
    with refusing as client, pytest.raises(GuardRefused, match="loopback"):
        client.get(url)
    with pytest.raises(GuardRefused, match=r"pds\.example resolves to a loopback"):
        guarded_session("Test", allow_private=False).get(url)
    assert len(internal.hits) == 2


def test_a_host_that_does_not_resolve_is_a_connection_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_such_host(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    monkeypatch.setattr(guard, "resolve", no_such_host)
    refusing = guarded_httpx("Test", allow_private=False)
    with refusing as client, pytest.raises(httpx.ConnectError, match="resolve"):
        client.get("https://pds.example/")


def test_network_clients_are_built_only_the_guarded_way() -> None:
    """A client made by hand (a future history pull, say) would bypass the guard: every
    client in publishing/ comes from guarded_http.py (atproto's through guarded_client)."""
    import re

    import socialgen.publishing as publishing

    by_hand = re.compile(
        r"httpx\.(Client|AsyncClient|get|post|put|request|stream)\(|requests\.(Session|get|post|"
        r"put|request)\(|\bClient\(base_url=(?!service_url, request=request)"
    )
    root = Path(publishing.__file__).parent
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "guarded_http.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if by_hand.search(line)
    ]
    assert found == []


def test_https_to_the_checked_address_keeps_the_hosts_tls_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connected by address, both clients still send the host's name (SNI) and check
    the certificate against it: the right name passes, another one is refused."""
    import ssl

    cert, chain = self_signed(tmp_path, "pds.example")
    hits: list[Hit] = []
    monkeypatch.setattr(guard, "resolve", lambda host, port: ["127.0.0.1"])
    for port in serve_tls(hits, chain):
        url = f"https://pds.example:{port}/xrpc/ping"
        verify = ssl.create_default_context(cafile=cert)
        with guarded_httpx("Test", allow_private=True, verify=verify) as client:
            assert client.get(url).text == "ok"
        assert guarded_session("Test", allow_private=True).get(url, verify=cert).text == "ok"
        assert [hit.headers.get("Host") for hit in hits] == [f"pds.example:{port}"] * 2

        wrong = f"https://other.example:{port}/xrpc/ping"
        trusted = ssl.create_default_context(cafile=cert)
        checked = guarded_httpx("Test", allow_private=True, verify=trusted)
        with checked as client, pytest.raises(httpx.ConnectError):
            client.get(wrong)
        with pytest.raises(requests.exceptions.SSLError):
            guarded_session("Test", allow_private=True).get(wrong, verify=cert)
        assert len(hits) == 2
