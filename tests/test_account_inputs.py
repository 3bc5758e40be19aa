"""What an account's fields may hold is checked before anything is sent, the same
over HTTP and from the CLI (publishing/accounts/service.py), with a 400 that names the field:
a secret with a line break or other control character, a token that cannot travel
in an HTTP header (non-ASCII), a field longer than the OpenAPI document says, and a
LinkedIn serviceUrl (the token would go wherever it points).

Real parts where the failure was seen: mastodon-mock for a token with CR/LF (was a
502 "could not reach"), the fake LinkedIn for a non-ASCII token (was a 502 "failed
unexpectedly"); the scripted network elsewhere, to see that nothing was sent."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.store.tables import SocialAccount
from tests.conftest import Store
from tests.fakes.linkedin_server import FakeLinkedIn
from tests.fakes.scripted_network import ScriptedNetwork
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture

BASE = "/api/v1/social-accounts"
SECRET = "app-pass-q7Zx-3k9w-secret"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.delenv("SOCIALGEN_BLUESKY_APP_PASSWORD", raising=False)


NETWORKS: dict[str, Any] = {}  # the test's (conftest's `networks`), set by `scripted`


@pytest.fixture
def scripted(
    store: Store, networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> ScriptedNetwork:
    """The scripted network as all three networks: it records every connect call."""
    net = ScriptedNetwork("bluesky")
    for name in ("bluesky", "mastodon", "linkedin"):
        networks[name] = net
    monkeypatch.setattr(f"{__name__}.NETWORKS", networks)
    return net


def owner(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def add(client: TestClient, store: Store, body: dict[str, Any]) -> Any:
    return client.post(f"{BASE}/{store.workspace_id}", json=body, headers=owner(store))


def refused(answer: Any, *words: str) -> str:
    assert answer.status_code == 400, answer.text
    message: str = answer.json()["message"]
    for word in words:
        assert word in message, (word, message)
    return message


def account_count(store: Store) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(SocialAccount)))


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    """The CLI with the test's networks in its Runtime."""
    return runner.invoke(app, list(args), input=input, env=env, obj=Runtime(networks=NETWORKS))


def cli_refused(result: Result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, (word, result.output)


# --- secrets -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token_tail", "words"),
    [
        ("\r\nX-Injected: 1", ("secret contains a carriage return (U+000D)", "one line")),
        ("\n", ("secret contains a line feed (U+000A)",)),
        ("\x07", ("secret contains a control character (U+0007)",)),
        ("é", ("secret contains a non-ASCII character", "HTTP header")),
    ],
)
def test_a_mastodon_token_that_cannot_be_a_header_is_a_400(
    client: TestClient, store: Store, mastodon_mock: MastodonMock, token_tail: str, words: Any
) -> None:
    user = mastodon_mock.new_user("crlf")
    body = {
        "network": "mastodon",
        "serviceUrl": mastodon_mock.base_url,
        "secret": user.token[:8] + token_tail + user.token[8:],
    }
    message = refused(add(client, store, body), *words)
    assert user.token not in message and account_count(store) == 0
    body["secret"] = user.token  # the same, clean, connects
    assert add(client, store, body).status_code == 201


def test_a_non_ascii_linkedin_token_is_a_400_not_a_502(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLinkedIn() as linkedin:
        monkeypatch.setattr(
            "socialgen.publishing.networks.linkedin.adapter.DEFAULT_SERVICE_URL", linkedin.base_url
        )
        token = linkedin.add_token()
        answer = add(client, store, {"network": "linkedin", "secret": token + "\u2019"})
        refused(answer, "secret contains a non-ASCII character (U+2019)")
        assert account_count(store) == 0
        assert add(client, store, {"network": "linkedin", "secret": token}).status_code == 201


def test_the_cli_names_the_secret_it_read(store: Store, scripted: ScriptedNetwork) -> None:
    cli_refused(
        run("accounts", "add", "mastodon", "--instance", "127.0.0.1:9", "--token-stdin",
            input="abc\tdef\n"),
        "The access token contains a tab (U+0009) at character 4",
    )  # fmt: skip
    cli_refused(  # read as bytes: text mode ended the line at the CR, cutting the token
        run("accounts", "add", "mastodon", "--instance", "127.0.0.1:9", "--token-stdin",
            input="abc\rdef\n"),
        "The access token contains a carriage return (U+000D) at character 4",
    )  # fmt: skip
    cli_refused(
        run("accounts", "add", "linkedin", "--token-stdin", input="tökén\n"),
        "The access token contains a non-ASCII character",
    )
    cli_refused(
        run("accounts", "add", "bluesky", "alice.test",
            env={"SOCIALGEN_BLUESKY_APP_PASSWORD": "pass\nword"}),
        "The app password contains a line feed",
    )  # fmt: skip
    assert scripted.connects == [] and account_count(store) == 0
    # A Bluesky app password travels in a JSON body: any printable text will do.
    assert run("accounts", "add", "bluesky", "alice.test", "--password-stdin",
               input="pässwörd\n").exit_code == 0  # fmt: skip


# --- field limits as the OpenAPI document states them --------------------------------


def test_every_documented_max_length_of_the_body_is_enforced(
    client: TestClient, store: Store, scripted: ScriptedNetwork
) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]["AddAccountBody"]
    limits = {}
    for name, field in schema["properties"].items():
        options = field.get("anyOf", [field])
        found = [option["maxLength"] for option in options if "maxLength" in option]
        if found:
            limits[name] = found[0]
    assert limits == {"handle": 320, "serviceUrl": 2048, "secret": 4096}
    valid = {"network": "bluesky", "handle": "alice.test", "secret": SECRET}
    for name, limit in limits.items():
        value = "a" * (limit + 1)
        if name == "serviceUrl":
            value = "http://127.0.0.1:9/" + "a" * (limit - len("http://127.0.0.1:9/") + 1)
        refused(add(client, store, {**valid, name: value}), name, str(limit))
    assert scripted.connects == [] and account_count(store) == 0


def test_a_5000_character_handle_is_refused_before_the_pds_sees_it(
    client: TestClient, store: Store, scripted: ScriptedNetwork
) -> None:
    handle = "h" * 5000
    body = {"network": "bluesky", "handle": handle, "secret": SECRET}
    refused(add(client, store, body), "handle", "320")
    cli_refused(
        run("accounts", "add", "bluesky", handle, "--password-stdin", input=SECRET + "\n"),
        "handle must be at most 320 characters (5000 given)",
    )
    cli_refused(
        run("accounts", "add", "bluesky", "bob\r\n.test", "--password-stdin", input=SECRET),
        "handle contains a carriage return",
    )
    assert scripted.connects == [] and account_count(store) == 0


# --- LinkedIn's service URL ------------------------------------------------------------


def test_a_linkedin_service_url_is_refused_and_no_token_goes_there(
    client: TestClient, store: Store, scripted: ScriptedNetwork
) -> None:
    body = {"network": "linkedin", "serviceUrl": "http://127.0.0.1:9/collect", "secret": SECRET}
    refused(add(client, store, body), "serviceUrl cannot be set for LinkedIn", "leave it out")
    assert scripted.connects == [] and account_count(store) == 0
    del body["serviceUrl"]
    assert add(client, store, body).status_code == 201
    assert scripted.connects == [("http://127.0.0.1:9", "")]  # LinkedIn's own API
