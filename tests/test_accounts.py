"""Social accounts and their secrets: the service, `socialgen accounts ...` and
/api/v1/social-accounts, against the scripted network (tests/fakes/scripted_network.py)
registered in place of Bluesky and Mastodon, on a real store and key file."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import col
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.publishing.accounts import service as accounts
from socialgen.publishing.networks.base import OutgoingPost, PublishError
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import (
    KEY_ENV,
    SecretKeyError,
    SecretUnreadable,
    decrypt_secret,
    encrypt_secret,
    new_key,
)
from socialgen.sources.guard import ALLOW_PRIVATE_ENV, UrlNotAllowed
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Publication, SocialAccount
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now

SECRET = "app-pass-q7Zx-3k9w-secret"  # must never show up anywhere but the adapter
NEW_SECRET = "app-pass-renewed-8f2L-secret"
BASE = "/api/v1/social-accounts"
PASSWORD_ENV = "SOCIALGEN_BLUESKY_APP_PASSWORD"
runner = CliRunner()


@pytest.fixture
def network(
    store: Store, networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedNetwork]:
    """The scripted network as Bluesky (and Mastodon), on 127.0.0.1: allowed here. A
    test asks for it before `client`, whose Runtime reads the settings once."""
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    net = ScriptedNetwork("bluesky", accepted_secrets={SECRET, NEW_SECRET})
    networks["bluesky"] = networks["mastodon"] = net
    monkeypatch.setattr(f"{__name__}.NETWORKS", networks)
    yield net


NETWORKS: dict[str, Any] = {}  # the test's (conftest's `networks`), set by `network`


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    """The CLI with the test's networks in its Runtime."""
    return runner.invoke(app, list(args), input=input, env=env, obj=Runtime(networks=NETWORKS))


def ok_json(*args: str, input: str | None = None) -> Any:
    result = run(*args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def fails(*args: str, words: tuple[str, ...], input: str | None = None) -> Result:
    result = run(*args, input=input)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    for word in words:
        assert word in result.output, (word, result.output)
    return result


def connect(store: Store, handle: str = "alice.test", secret: str = SECRET) -> SocialAccount:
    networks = Networks.of(Runtime(networks=NETWORKS))
    connected = accounts.connect_account(networks, "bluesky", None, handle, secret)
    with transaction(store.engine) as session:
        return accounts.add_account(
            session, store.workspace_id, "bluesky", connected, networks=networks
        )


def queue_publication(store: Store, account_id: str) -> str:
    post = store.post("Going out soon")
    with transaction(store.engine) as session:
        row = Publication(workspace_id=store.workspace_id, post_id=post.id, account_id=account_id)
        session.add(row)
        return row.id


def headers(store: Store, email: str | None = None) -> dict[str, str]:
    token = store.token(email) if email else store.token()
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {token}"}


# --- the service ---------------------------------------------------------------------


def test_add_find_by_every_ref_and_remove(store: Store, network: ScriptedNetwork) -> None:
    account = connect(store)
    assert network.connects == [("http://127.0.0.1:9", "alice.test")]
    with read_session(store.engine) as session:
        for ref in (account.id, "@alice.test", "alice.test", "ALICE.test", "bluesky:alice.test"):
            assert accounts.get_account(session, store.workspace_id, ref).id == account.id
        assert [a.id for a in accounts.list_accounts(session, store.workspace_id)] == [account.id]
        with pytest.raises(NotFound, match="Social account not found: mastodon:alice\\.test"):
            accounts.get_account(session, store.workspace_id, "mastodon:alice.test")
    assert accounts.account_view(account).model_dump() == {
        "id": account.id,
        "network": "bluesky",
        "handle": "@alice.test",
        "displayName": "Scripted alice.test",
        "email": "alice.test@scripted.example",
        "profileUrl": "https://scripted.example/@alice.test",
        "serviceUrl": "http://127.0.0.1:9",
        "createdAt": accounts.account_view(account).createdAt,
    }
    queue_publication(store, account.id)
    with transaction(store.engine) as session:
        assert accounts.queued_publications(session, account.id) == 1
        accounts.remove_account(session, store.workspace_id, "alice.test")
    assert store.scalar(sa.select(sa.func.count()).select_from(Publication)) == 0  # cascade
    with read_session(store.engine) as session, pytest.raises(NotFound):
        accounts.get_account(session, store.workspace_id, account.id)


def test_reconnecting_replaces_the_secret_and_keeps_the_id(
    store: Store, network: ScriptedNetwork
) -> None:
    first = connect(store)
    again = connect(store, secret=NEW_SECRET)
    assert again.id == first.id
    with read_session(store.engine) as session:
        (row,) = accounts.list_accounts(session, store.workspace_id)
    assert accounts.credentials_for(row, keys_now()).secret == {"password": NEW_SECRET}


def test_an_adapters_refreshed_secret_is_stored(store: Store, network: ScriptedNetwork) -> None:
    account = connect(store)
    network.refresh_on_publish = True
    keys = keys_now()
    adapter = (
        Networks.of(Runtime(networks=NETWORKS))
        .module("bluesky")
        .build(
            accounts.credentials_for(account, keys),
            accounts.secret_saver(store.engine, account.id, keys),
        )
    )
    adapter.publish(OutgoingPost(publication_id="p1", idempotency_key="k1", text="Hello"))
    with read_session(store.engine) as session:
        row = session.get(SocialAccount, account.id)
    assert row is not None
    secret = accounts.credentials_for(row, keys).secret
    assert secret == {"password": SECRET, "session": "refreshed-1"}


def test_another_workspaces_account_is_not_found(
    network: ScriptedNetwork, client: TestClient, store: Store
) -> None:
    account = connect(store)
    other = store.workspace("Other")
    with read_session(store.engine) as session:
        for ref in (account.id, "alice.test"):
            with pytest.raises(NotFound):
                accounts.get_account(session, other, ref)
    response = client.get(
        f"{BASE}/{other}/{account.id}", headers={"x-api-key": store.api_key(other)}
    )
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "message": f"Social account not found: {account.id}",
    }


def test_unknown_network_and_loopback_without_allowance_are_refused(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BadRequest, match="use one of bluesky, mastodon, linkedin"):
        Networks.of(Runtime()).module("myspace")
    monkeypatch.delenv(ALLOW_PRIVATE_ENV)
    with pytest.raises(UrlNotAllowed, match="loopback"):
        accounts.connect_account(
            Networks.of(Runtime(networks=NETWORKS)), "bluesky", None, "alice.test", SECRET
        )
    fails(
        "accounts", "add", "bluesky", "alice.test", "--service", "http://127.0.0.1:8",
        "--password-stdin", input=SECRET + "\n", words=("URL not allowed", "loopback"),
    )  # fmt: skip
    assert network.connects == []  # refused before any call to the network
    assert store.scalar(sa.select(sa.func.count()).select_from(SocialAccount)) == 0


# --- secrets -------------------------------------------------------------------------


def test_the_key_file_is_private_and_the_database_holds_no_plain_secret(
    store: Store, network: ScriptedNetwork
) -> None:
    connect(store)
    keys = keys_now()
    mode = stat.S_IMODE(keys.key_file.stat().st_mode)
    assert keys.key_file.parent == store.home and mode == 0o600
    stored = store.scalar(sa.select(col(SocialAccount.secret_ciphertext)))
    assert SECRET not in stored and decrypt_secret(stored, keys) == {"password": SECRET}
    if store.url.startswith("sqlite"):
        files = [store.home / name for name in ("socialgen.db", "socialgen.db-wal")]
        assert all(SECRET.encode() not in f.read_bytes() for f in files if f.exists())


def test_processes_starting_together_agree_on_one_key(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = (
        "import sys\n"
        "from socialgen.publishing.secrets import SecretKeys, encrypt_secret as e\n"
        "from socialgen.app.runtime import Runtime\n"
        "from socialgen.store.engine import new_engine, read_session\n"
        "with read_session(new_engine(sys.argv[1])) as session:\n"
        "    print(e({'a': 'b'}, session, SecretKeys.of(Runtime())))\n"
    )
    fresh = store.home / "fresh"
    # The test's store (no account in it yet) decides; the key file goes in `fresh`.
    env = {**os.environ, "SOCIALGEN_HOME": str(fresh)}
    env.pop(KEY_ENV, None)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, store.url], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    tokens = [child.communicate(timeout=60)[0].strip() for child in children]
    monkeypatch.setenv("SOCIALGEN_HOME", str(fresh))
    monkeypatch.delenv(KEY_ENV, raising=False)
    keys = keys_now()
    assert len(tokens) == 6 and all(decrypt_secret(token, keys) == {"a": "b"} for token in tokens)
    assert [p.name for p in fresh.iterdir()] == ["secret.key"]  # no temporary file left


def test_a_changed_key_is_a_clear_error_without_the_secret(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, new_key())
    account = connect(store)
    monkeypatch.setenv(KEY_ENV, new_key())
    with pytest.raises(SecretUnreadable, match=r"secret key .* changed .* Add the account again"):
        accounts.credentials_for(account, keys_now())
    result = fails("accounts", "check", account.id, words=("changed", "Add the account again"))
    assert SECRET not in result.output and account.secret_ciphertext not in result.output
    rotated = f"{new_key()},{os.environ[KEY_ENV]}"  # new key first, old one still reads
    monkeypatch.setenv(KEY_ENV, rotated)
    with read_session(store.engine) as session:
        keys = keys_now()
        assert decrypt_secret(encrypt_secret({"x": "y"}, session, keys), keys) == {"x": "y"}
        monkeypatch.setenv(KEY_ENV, "not-a-key-" + SECRET)
        with pytest.raises(SecretKeyError) as error:
            encrypt_secret({"x": "y"}, session, keys_now())
    assert SECRET not in error.value.message and KEY_ENV in error.value.message


def test_a_secret_key_set_after_the_runtime_was_built_changes_nothing(
    network: ScriptedNetwork, client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key (SOCIALGEN_SECRET_KEY, else the key file in the home) is read once with
    the Runtime's settings: a server keeps the one it started with until it restarts;
    the next Runtime (a command) reads the variable."""
    url = f"{BASE}/{store.workspace_id}"
    body = {"network": "bluesky", "handle": "alice.test", "serviceUrl": None, "secret": SECRET}
    added = client.post(url, json=body, headers=headers(store))  # the key file is made
    assert added.status_code == 201, added.text
    account_id = added.json()["data"]["id"]

    another = new_key()
    monkeypatch.setenv(KEY_ENV, another)
    monkeypatch.setenv("SOCIALGEN_HOME", str(store.home / "moved"))  # the key file's folder

    checked = client.post(f"{url}/{account_id}/check", headers=headers(store))
    assert checked.status_code == 200, checked.text  # the server's key: the file's
    assert keys_now().configured == another  # a Runtime made now reads the variable
    assert another not in repr(keys_now())  # and never shows it
    monkeypatch.setenv("SOCIALGEN_HOME", str(store.home))
    with read_session(store.engine) as session:
        account = session.get(SocialAccount, account_id)
        assert account is not None
        with pytest.raises(SecretUnreadable, match="changed"):
            accounts.credentials_for(account, keys_now())


# --- the CLI -------------------------------------------------------------------------


def test_cli_add_list_check_remove(store: Store, network: ScriptedNetwork) -> None:
    added = ok_json("accounts", "add", "bluesky", "alice.test", "--password-stdin", input=SECRET)
    assert added["handle"] == "@alice.test" and "secret" not in json.dumps(added).lower()
    human = run("accounts", "add", "bluesky", "alice.test", input=NEW_SECRET + "\n")  # prompt
    assert human.exit_code == 0 and "Reconnected bluesky account @alice.test" in human.stdout
    assert [a["id"] for a in ok_json("accounts", "list")] == [added["id"]]
    checked = ok_json("accounts", "check", "alice.test")
    assert checked["ok"] is True and checked["identity"]["handle"] == "@alice.test"
    assert network.checks == ["@alice.test"]
    network.accepted_secrets = {SECRET}  # NEW_SECRET revoked on the network's side
    fails("accounts", "check", "alice.test", words=("refused the credentials", "Reconnect"))
    queue_publication(store, added["id"])
    fails("accounts", "remove", added["id"], words=("1 queued publication", "pass --yes"))
    removed = ok_json("accounts", "remove", "bluesky:alice.test", "--yes")
    assert removed == {"account": added, "queuedPublicationsRemoved": 1}
    fails("accounts", "remove", "alice.test", "--yes", words=("not found: alice.test",))


def test_cli_mastodon_by_token_or_browser_and_linkedin_needs_an_app(
    store: Store, network: ScriptedNetwork
) -> None:
    by_token = ok_json(
        "accounts", "add", "mastodon", "--instance", "127.0.0.1:9", "--token-stdin", input=SECRET
    )
    assert by_token["serviceUrl"] == "https://127.0.0.1:9" and by_token["network"] == "mastodon"
    browser = run("accounts", "add", "mastodon", "--instance", "http://127.0.0.1:9", "--no-browser")
    assert browser.exit_code == 0, browser.output
    assert "oauth/authorize" in browser.stderr and "@oauth-user" in browser.stdout
    fails("accounts", "add", "linkedin", words=("--client-id", "--token-stdin"))
    fails("accounts", "add", "bluesky", "x.test", "--password-stdin", input="\n", words=("stdin",))


# --- HTTP ----------------------------------------------------------------------------


def test_http_add_list_get_check_remove_and_roles(
    network: ScriptedNetwork, client: TestClient, store: Store
) -> None:
    owner = headers(store)
    store.user("m@example.com", workspace_id=store.workspace_id, role="member")
    member = headers(store, "m@example.com")
    body = {"network": "bluesky", "handle": "alice.test", "serviceUrl": None, "secret": SECRET}
    url = f"{BASE}/{store.workspace_id}"
    assert client.post(url, json=body, headers=member).status_code == 403
    added = client.post(url, json=body, headers=owner)
    assert added.status_code == 201, added.text
    view = added.json()["data"]
    assert client.get(url, headers=member).json() == {"success": True, "data": [view]}
    assert client.get(f"{url}/{view['id']}", headers=member).json()["data"] == view
    checked = client.post(f"{url}/{view['id']}/check", headers=member)
    assert (
        checked.status_code == 200 and checked.json()["data"]["identity"]["handle"] == "@alice.test"
    )
    assert client.delete(f"{url}/{view['id']}", headers=member).status_code == 403
    queue_publication(store, view["id"])
    removed = client.delete(f"{url}/{view['id']}", headers=owner)
    assert removed.json()["data"] == {"account": view, "queuedPublicationsRemoved": 1}
    assert client.get(f"{url}/{view['id']}", headers=owner).status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"network": "bluesky", "handle": "a.test", "secret": "wrong-password"}, 400, "refused"),
        ({"network": "myspace", "secret": SECRET}, 400, "Unknown network"),
        ({"network": "bluesky", "secret": SECRET}, 400, "handle is required"),
        ({"network": "bluesky", "handle": "a.test", "secret": "  "}, 400, "secret is required"),
        ({"network": "bluesky", "handle": "a.test", "secret": 5}, 400, "Invalid secret"),
        (
            {"network": "bluesky", "handle": "a", "serviceUrl": "ftp://x", "secret": SECRET},
            400,
            "URL",
        ),
    ],
)
def test_http_add_refusals(
    network: ScriptedNetwork, client: TestClient, store: Store, body: Any, status: int, words: str
) -> None:
    response = client.post(f"{BASE}/{store.workspace_id}", json=body, headers=headers(store))
    assert response.status_code == status and words in response.json()["message"], response.text
    assert SECRET not in response.text


# --- the secret never leaks ----------------------------------------------------------


def test_the_secret_appears_in_no_output_body_or_log(
    network: ScriptedNetwork, client: TestClient, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []

    def echo_connect(service_url: str, handle: str, secret: str, **_settings: Any) -> Any:
        raise PublishError(f"bad login {handle}:{secret} at {service_url}")

    cli = [
        run("accounts", "add", "bluesky", "alice.test", "--password-stdin", "--json", input=SECRET),
        run("accounts", "add", "bluesky", "alice.test", input=SECRET + "\n"),
        run("accounts", "add", "bluesky", "alice.test", env={PASSWORD_ENV: SECRET}),
        run("accounts", "list"), run("accounts", "list", "--json"),
        run("accounts", "check", "alice.test"), run("accounts", "check", "alice.test", "--json"),
    ]  # fmt: skip
    seen += [r.stdout + r.stderr for r in cli]
    assert all(r.exit_code == 0 for r in cli), [r.output for r in cli]
    owner, url = headers(store), f"{BASE}/{store.workspace_id}"
    body = {"network": "bluesky", "handle": "alice.test", "secret": SECRET}
    view = client.post(url, json=body, headers=owner).json()["data"]
    answers = [
        client.get(url, headers=owner),
        client.get(f"{url}/{view['id']}", headers=owner),
        client.post(f"{url}/{view['id']}/check", headers=owner),
    ]
    network.connect = echo_connect  # type: ignore[method-assign]  # a network echoing it
    answers.append(client.post(url, json=body, headers=owner))
    failed = run("accounts", "add", "bluesky", "alice.test", "--password-stdin", input=SECRET)
    assert failed.exit_code == 1 and "bad login alice.test:***" in failed.output
    network.accepted_secrets = set()  # revoked: check fails in the network's words
    revoked = run("accounts", "check", "alice.test")
    assert revoked.exit_code == 1 and "refused the credentials" in revoked.output
    answers.append(client.post(f"{url}/{view['id']}/check", headers=owner))
    answers.append(client.delete(f"{url}/{view['id']}", headers=owner))
    seen += [failed.stdout + failed.stderr, revoked.stdout + revoked.stderr]
    seen += [a.text for a in answers] + [r.getMessage() for r in caplog.records]
    assert [a.status_code for a in answers] == [200, 200, 200, 400, 400, 200]
    assert len(seen) > 10 and all(SECRET not in text for text in seen)


def test_a_runtimes_networks_carry_what_its_settings_say_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The network modules read no settings: the Runtime's Networks hand them in."""
    from socialgen.app.runtime import Runtime
    from socialgen.publishing.networks.base import NetworkSettings

    monkeypatch.setenv("SOCIALGEN_LINKEDIN_VERSION", "202501")
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_TIMEOUT", "2.5")
    monkeypatch.setenv("SOCIALGEN_BLUESKY_APPVIEW", "https://appview.example")
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    assert Networks.of(Runtime()).settings == NetworkSettings(
        linkedin_version="202501",
        linkedin_timeout=2.5,
        bluesky_appview="https://appview.example",
        allow_private_urls=True,
    )
    assert Networks(keys=keys_now()).settings == NetworkSettings()
