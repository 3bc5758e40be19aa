"""`--to linkedin`: a bare network name means "my account on it" (issue 40, item 5).

publishing/accounts/service.get_account: a ref that is exactly a network's name, when
no account has it as its handle, is the workspace's one account on that network;
several there, a clear error naming each; none, "not found" (a dry run then previews
the network unconnected: publishing/outbox/dryrun_unconnected.py).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.publishing.accounts.service import get_account
from socialgen.store.engine import read_session
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.outbox_support import add_account

pytest_plugins = ["tests.outbox_support"]  # the network fixtures
runner = CliRunner()


def find(store: Store, ref: str) -> str:
    with read_session(store.engine) as session:
        return get_account(session, store.workspace_id, ref).id


def test_a_network_name_is_the_one_account_there(store: Store) -> None:
    mine = add_account(store, "urn:li:person:abc123", "linkedin")
    add_account(store, "ada.bsky.social", "bluesky")

    assert find(store, "linkedin") == mine
    assert find(store, " LinkedIn ") == mine


def test_two_accounts_on_the_network_are_named(store: Store) -> None:
    add_account(store, "urn:li:person:one", "linkedin")
    add_account(store, "urn:li:person:two", "linkedin")

    with pytest.raises(BadRequest) as refused:
        find(store, "linkedin")

    assert "linkedin:urn:li:person:one" in refused.value.message
    assert "linkedin:urn:li:person:two" in refused.value.message


def test_no_account_on_the_network_is_not_found(store: Store) -> None:
    add_account(store, "ada.bsky.social", "bluesky")

    with pytest.raises(NotFound):
        find(store, "linkedin")


def test_an_account_whose_handle_is_the_name_comes_first(store: Store) -> None:
    """A handle is what the user typed; the network rule is only for what names none."""
    handle = add_account(store, "mastodon", "bluesky")
    add_account(store, "@ada@social.example", "mastodon")

    assert find(store, "mastodon") == handle


def test_another_workspaces_account_is_never_taken(store: Store) -> None:
    other = store.workspace("Elsewhere")
    add_account(store, "urn:li:person:abc123", "linkedin")

    with read_session(store.engine) as session, pytest.raises(NotFound):
        get_account(session, other, "linkedin")


# --- the commands: posts publish / schedule --to linkedin ----------------------------


def run(networks: dict[str, Any], *args: str) -> Result:
    return runner.invoke(app, list(args), obj=Runtime(networks=networks))


def test_publish_and_schedule_to_a_network_name(
    store: Store, networks: dict[str, Any], linkedin: ScriptedNetwork
) -> None:
    account = add_account(store, "urn:li:person:abc123", "linkedin")
    now, later = store.post("Out to LinkedIn now"), store.post("Out to LinkedIn later")

    preview = run(networks, "posts", "publish", now.id, "--to", "linkedin", "--dry-run", "--json")
    published = run(networks, "posts", "publish", now.id, "--to", "linkedin", "--json")
    at = iso(utcnow() + timedelta(hours=1)) or ""
    scheduled = run(
        networks, "posts", "schedule", later.id, "--at", at, "--to", "linkedin", "--json"
    )

    assert preview.exit_code == 0, preview.output
    (shown,) = json.loads(preview.stdout)["networks"]
    assert shown["accountId"] == account and shown.get("connected") is not False
    assert published.exit_code == 0, published.output
    (row,) = json.loads(published.stdout)["publications"]
    assert row["state"] == "published" and row["accountId"] == account
    assert [post.text for post in linkedin.published] == ["Out to LinkedIn now"]
    assert scheduled.exit_code == 0, scheduled.output
    (queued,) = json.loads(scheduled.stdout)["publications"]
    assert queued["state"] == "queued" and queued["accountId"] == account


def test_two_accounts_on_the_network_is_an_error_not_a_guess(
    store: Store, networks: dict[str, Any], linkedin: ScriptedNetwork
) -> None:
    add_account(store, "urn:li:person:one", "linkedin")
    add_account(store, "urn:li:person:two", "linkedin")
    post = store.post("Which one?")

    result = run(networks, "posts", "publish", post.id, "--to", "linkedin")

    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "Several accounts are called linkedin" in said
    assert "linkedin:urn:li:person:one" in said and "linkedin:urn:li:person:two" in said
    assert "Traceback" not in result.output
    assert not linkedin.published
