"""`socialgen workspace|user|member|key|token ...`, driven through the real CLI app.

Every error case checks: non-zero exit, the key words of the message, no traceback,
and that no table of the store changed.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
import typer.testing
from sqlmodel import SQLModel
from typer.main import get_command
from typer.testing import CliRunner, Result

from socialgen.auth.service import authenticate_api_key, authenticate_token
from socialgen.cli import app
from socialgen.clock import parse_iso, utcnow
from socialgen.errors import NotAuthenticated
from socialgen.store.engine import read_session
from socialgen.store.tables import ApiKey, Membership, User, Workspace, WorkspaceUsage
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from tests.conftest import Store

runner = CliRunner()
_COMMAND = get_command(app)


@pytest.fixture(autouse=True)
def _build_the_cli_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """typer rebuilds the click command tree on every invoke (~35 ms); build it once."""
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: _COMMAND)


# --------------------------------------------------------------------------- helpers


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, list(args), env=env)


def ok_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def snapshot(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to prove a refused command changed nothing."""
    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in SQLModel.metadata.sorted_tables
        }


def refuse(store: Store, args: list[str], *words: str) -> Result:
    before = snapshot(store)
    result = run(*args)
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    for word in words:
        assert word in result.output, (word, result.output)
    assert snapshot(store) == before
    return result


def role_of(store: Store, workspace_id: str, user_id: str) -> str | None:
    return store.scalar(
        sa.select(Membership.role).where(
            Membership.workspace_id == workspace_id, Membership.user_id == user_id
        )
    )


def close_to(text: str, moment: Any, delta: timedelta = timedelta(minutes=2)) -> bool:
    return abs(parse_iso(text) - moment) < delta


# --------------------------------------------------------------------------- workspace


def test_workspace_create_and_list(store: Store) -> None:
    created = ok_json("workspace", "create", "  Agency  ")

    assert set(created) == {"workspaceId", "name"}
    assert created["name"] == "Agency"
    assert store.scalar(
        sa.select(Workspace.name).where(Workspace.id == created["workspaceId"])
    ) == ("Agency")
    listed = {row["workspaceId"]: row for row in ok_json("workspace", "list")}
    assert set(listed) == {store.workspace_id, created["workspaceId"]}
    row = listed[created["workspaceId"]]
    assert set(row) == {"workspaceId", "name", "default", "createdAt", "postQuota", "postsUsed"}
    assert (row["name"], row["default"], row["postQuota"], row["postsUsed"]) == (
        "Agency",
        False,
        None,
        0,
    )
    assert close_to(row["createdAt"], utcnow())
    assert listed[store.workspace_id]["default"] is True
    assert listed[store.workspace_id]["name"] == "Personal"


def test_workspace_human_output(store: Store) -> None:
    created = run("workspace", "create", "Agency")
    assert created.exit_code == 0, created.output
    assert "Created workspace 'Agency'" in created.stdout

    listed = run("workspace", "list", env={"COLUMNS": "250"})

    assert listed.exit_code == 0, listed.output
    assert "Workspaces" in listed.stdout
    assert "Personal" in listed.stdout
    assert "Agency" in listed.stdout
    assert store.workspace_id in listed.stdout


@pytest.mark.parametrize(
    ("name", "words"),
    [("", ["Workspace name is required"]), ("   ", ["Workspace name is required"])],
    ids=["empty", "blank"],
)
def test_workspace_create_refuses_a_blank_name(store: Store, name: str, words: list[str]) -> None:
    refuse(store, ["workspace", "create", name], *words)


def test_workspace_create_refuses_a_long_name(store: Store) -> None:
    refuse(store, ["workspace", "create", "w" * 201], "longer than 200")


def test_workspace_quota_set_by_id_and_name_and_unlimited(store: Store) -> None:
    other = store.workspace("Agency")

    by_id = ok_json("workspace", "quota", other, "25")
    assert by_id == {"workspaceId": other, "postQuota": 25, "postsUsed": 0}
    assert (
        store.scalar(
            sa.select(WorkspaceUsage.post_quota).where(WorkspaceUsage.workspace_id == other)
        )
        == 25
    )
    by_name = ok_json("workspace", "quota", "Agency", "0")
    assert by_name == {"workspaceId": other, "postQuota": 0, "postsUsed": 0}
    listed = {row["workspaceId"]: row for row in ok_json("workspace", "list")}
    assert listed[other]["postQuota"] == 0
    assert listed[store.workspace_id]["postQuota"] is None  # the other workspace is untouched

    unlimited = ok_json("workspace", "quota", other, "Unlimited")

    assert unlimited == {"workspaceId": other, "postQuota": None, "postsUsed": 0}
    assert (
        store.scalar(
            sa.select(WorkspaceUsage.post_quota).where(WorkspaceUsage.workspace_id == other)
        )
        is None
    )


def test_workspace_quota_human_output(store: Store) -> None:
    result = run("workspace", "quota", "Personal", "unlimited")

    assert result.exit_code == 0, result.output
    assert f"Post quota of {store.workspace_id}: unlimited" in result.stdout


def test_workspace_quota_refuses_a_negative_number(store: Store) -> None:
    ok_json("workspace", "quota", "Personal", "10")
    refuse(store, ["workspace", "quota", "Personal", "--", "-5"], "0 or more")


def test_workspace_quota_refuses_a_negative_number_without_separator(store: Store) -> None:
    ok_json("workspace", "quota", "Personal", "10")
    refuse(store, ["workspace", "quota", "Personal", "-5"], "-5")


@pytest.mark.parametrize("quota", ["many", "1.5", "", "10 posts"])
def test_workspace_quota_refuses_a_non_number(store: Store, quota: str) -> None:
    refuse(store, ["workspace", "quota", "Personal", quota], "whole number or 'unlimited'")


def test_workspace_quota_refuses_an_unknown_workspace(store: Store) -> None:
    refuse(store, ["workspace", "quota", "Nowhere", "5"], "Workspace not found", "Nowhere")


# --------------------------------------------------------------------------- user


def test_user_create_and_list(store: Store) -> None:
    created = ok_json("user", "create", " Ada@Example.COM ", "--name", "Ada Lovelace")

    assert set(created) == {"userId", "email", "name"}
    assert (created["email"], created["name"]) == ("ada@example.com", "Ada Lovelace")
    assert store.scalar(sa.select(User.email).where(User.id == created["userId"])) == (
        "ada@example.com"
    )
    listed = ok_json("user", "list")
    assert isinstance(listed, list)
    by_email = {row["email"]: row for row in listed}
    assert set(by_email) == {LOCAL_OWNER_EMAIL, "ada@example.com"}
    assert by_email["ada@example.com"]["userId"] == created["userId"]
    assert set(by_email["ada@example.com"]) == {"userId", "email", "name", "createdAt"}


def test_user_create_without_name(store: Store) -> None:
    created = ok_json("user", "create", "bob@example.com")
    assert created["name"] is None


def test_user_human_output(store: Store) -> None:
    created = run("user", "create", "bob@example.com")
    assert created.exit_code == 0, created.output
    assert "Created user bob@example.com" in created.stdout

    listed = run("user", "list", env={"COLUMNS": "200"})

    assert listed.exit_code == 0, listed.output
    assert "Users" in listed.stdout
    assert "bob@example.com" in listed.stdout
    assert LOCAL_OWNER_EMAIL in listed.stdout


@pytest.mark.parametrize("email", ["not-an-email", "a@b c", "@example.com", "ada@", ""])
def test_user_create_refuses_a_bad_email(store: Store, email: str) -> None:
    refuse(store, ["user", "create", email], "Not a valid email address")


@pytest.mark.parametrize("email", ["owner@localhost", "  OWNER@Localhost "])
def test_user_create_refuses_a_duplicate(store: Store, email: str) -> None:
    refuse(store, ["user", "create", email], "already exists", "owner@localhost")


def test_user_create_refuses_a_blank_name(store: Store) -> None:
    refuse(store, ["user", "create", "bob@example.com", "--name", "  "], "User name is required")


# --------------------------------------------------------------------------- member


def test_member_add_change_role_list_and_remove(store: Store) -> None:
    user_id = store.user("ada@example.com")

    added = ok_json("member", "add", "Personal", "ada@example.com")
    assert added == {"workspaceId": store.workspace_id, "userId": user_id, "role": "member"}
    assert role_of(store, store.workspace_id, user_id) == "member"

    promoted = ok_json("member", "add", store.workspace_id, "ADA@example.com", "--role", "Admin")
    assert promoted == {"workspaceId": store.workspace_id, "userId": user_id, "role": "admin"}
    assert role_of(store, store.workspace_id, user_id) == "admin"

    members = ok_json("member", "list", "Personal")
    assert isinstance(members, list)
    roles = {row["email"]: row["role"] for row in members}
    assert roles == {LOCAL_OWNER_EMAIL: "owner", "ada@example.com": "admin"}
    assert all(set(row) == {"userId", "email", "name", "role"} for row in members)

    removed = ok_json("member", "remove", "Personal", "ada@example.com")
    assert removed == {"workspaceId": store.workspace_id, "userId": user_id, "removed": True}
    assert role_of(store, store.workspace_id, user_id) is None
    assert [row["email"] for row in ok_json("member", "list", "Personal")] == [LOCAL_OWNER_EMAIL]


def test_member_human_output(store: Store) -> None:
    store.user("ada@example.com")
    added = run("member", "add", "Personal", "ada@example.com", "--role", "admin")
    assert added.exit_code == 0, added.output
    assert f"ada@example.com is admin of {store.workspace_id}" in added.stdout

    listed = run("member", "list", "Personal", env={"COLUMNS": "200"})

    assert listed.exit_code == 0, listed.output
    assert f"Members of {store.workspace_id}" in listed.stdout
    assert "ada@example.com" in listed.stdout
    assert "admin" in listed.stdout
    assert "owner" in listed.stdout


def test_member_of_another_workspace_is_separate(store: Store) -> None:
    other = store.workspace("Agency")
    user_id = store.user("ada@example.com", workspace_id=other, role="owner")

    assert [row["email"] for row in ok_json("member", "list", "Agency")] == ["ada@example.com"]
    assert role_of(store, store.workspace_id, user_id) is None
    refuse(store, ["member", "remove", "Personal", "ada@example.com"], "not a member")


@pytest.mark.parametrize("role", ["boss", "", "owners"])
def test_member_add_refuses_a_bad_role(store: Store, role: str) -> None:
    store.user("ada@example.com")
    refuse(
        store,
        ["member", "add", "Personal", "ada@example.com", "--role", role],
        "Unknown role",
        "owner, admin, member",
    )


def test_member_add_refuses_an_unknown_user(store: Store) -> None:
    refuse(store, ["member", "add", "Personal", "ghost@example.com"], "User not found", "ghost")


def test_member_add_refuses_a_bad_email(store: Store) -> None:
    refuse(store, ["member", "add", "Personal", "ghost"], "Not a valid email address")


@pytest.mark.parametrize(
    "args",
    [
        ["member", "add", "Nowhere", "owner@localhost"],
        ["member", "remove", "Nowhere", "owner@localhost"],
        ["member", "list", "Nowhere"],
    ],
    ids=["add", "remove", "list"],
)
def test_member_commands_refuse_an_unknown_workspace(store: Store, args: list[str]) -> None:
    refuse(store, args, "Workspace not found", "Nowhere")


def test_member_remove_refuses_an_unknown_user(store: Store) -> None:
    refuse(store, ["member", "remove", "Personal", "ghost@example.com"], "User not found")


def test_removing_or_demoting_the_last_owner_is_refused(store: Store) -> None:
    refuse(store, ["member", "remove", "Personal", LOCAL_OWNER_EMAIL], "at least one owner")
    refuse(
        store,
        ["member", "add", "Personal", LOCAL_OWNER_EMAIL, "--role", "admin"],
        "at least one owner",
    )
    assert role_of(store, store.workspace_id, store.owner_id) == "owner"


def test_an_owner_can_go_once_another_owner_exists(store: Store) -> None:
    store.user("ada@example.com", workspace_id=store.workspace_id, role="owner")

    ok_json("member", "remove", "Personal", LOCAL_OWNER_EMAIL)

    assert role_of(store, store.workspace_id, store.owner_id) is None
    # Ada is now the last owner.
    refuse(store, ["member", "remove", "Personal", "ada@example.com"], "at least one owner")


# --------------------------------------------------------------------------- key


def _authenticates(store: Store, secret: str) -> str | None:
    """The workspace the key is bound to; raises NotAuthenticated when refused."""
    with read_session(store.engine) as session:
        return authenticate_api_key(session, secret).workspace_id


def test_key_create_is_bound_to_the_default_workspace(store: Store) -> None:
    created = ok_json("key", "create", "--name", "ci")

    assert set(created) == {"keyId", "apiKey", "name", "workspaceId"}
    assert created["name"] == "ci"
    assert created["workspaceId"] == store.workspace_id
    assert created["apiKey"].startswith("sgk_")
    assert _authenticates(store, created["apiKey"]) == store.workspace_id
    # Only the hash is stored.
    stored = store.scalar(sa.select(ApiKey.key_hash).where(ApiKey.id == created["keyId"]))
    assert stored == hashlib.sha256(created["apiKey"].encode()).hexdigest()
    assert not any(created["apiKey"] in row for rows in snapshot(store).values() for row in rows)


def test_key_create_any_workspace_is_unbound(store: Store) -> None:
    created = ok_json("key", "create", "--any-workspace")

    assert created["workspaceId"] is None
    assert created["name"] is None
    assert _authenticates(store, created["apiKey"]) is None


def test_key_create_for_another_workspace(store: Store) -> None:
    other = store.workspace("Agency")

    assert ok_json("key", "create", "-w", "Agency")["workspaceId"] == other
    assert ok_json("key", "create", "--workspace", other)["workspaceId"] == other


def test_key_create_refuses_an_unknown_workspace(store: Store) -> None:
    refuse(store, ["key", "create", "-w", "Nowhere"], "Workspace not found")


def test_key_create_human_output_prints_the_secret_once(store: Store) -> None:
    result = run("key", "create", env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    [key_id] = [row["keyId"] for row in ok_json("key", "list")]
    assert f"API key {key_id}" in result.stdout
    assert f"bound to workspace {store.workspace_id}" in result.stdout
    assert "not shown again" in result.stdout
    secret = result.stdout.strip().splitlines()[-1].strip()
    assert secret.startswith("sgk_")
    assert _authenticates(store, secret) == store.workspace_id


def test_key_list_never_shows_the_secret(store: Store) -> None:
    first = ok_json("key", "create", "--name", "one")
    second = ok_json("key", "create", "--any-workspace")

    listed = run("key", "list", "--json")
    human = run("key", "list", env={"COLUMNS": "250"})

    assert listed.exit_code == human.exit_code == 0
    rows = json.loads(listed.stdout)
    assert isinstance(rows, list)
    assert [row["keyId"] for row in rows] == [first["keyId"], second["keyId"]]
    for row, created in zip(rows, (first, second), strict=True):
        assert set(row) == {"keyId", "name", "prefix", "workspaceId", "createdAt", "revokedAt"}
        assert row["prefix"] == created["apiKey"][:12]
        assert row["workspaceId"] == created["workspaceId"]
        assert row["revokedAt"] is None
    for secret in (first["apiKey"], second["apiKey"]):
        assert secret not in listed.stdout
        assert secret not in human.output
    assert first["keyId"] in human.stdout


def test_key_revoke(store: Store) -> None:
    created = ok_json("key", "create")

    revoked = ok_json("key", "revoke", created["keyId"])

    assert set(revoked) == {"keyId", "revokedAt"}
    assert revoked["keyId"] == created["keyId"]
    assert close_to(revoked["revokedAt"], utcnow())
    [row] = ok_json("key", "list")
    assert row["revokedAt"] == revoked["revokedAt"]
    with pytest.raises(NotAuthenticated, match="revoked"):
        _authenticates(store, created["apiKey"])


def test_key_revoke_twice_is_refused(store: Store) -> None:
    created = ok_json("key", "create")
    ok_json("key", "revoke", created["keyId"])

    refuse(store, ["key", "revoke", created["keyId"]], "already revoked")


def test_key_revoke_refuses_an_unknown_id(store: Store) -> None:
    ok_json("key", "create")
    refuse(store, ["key", "revoke", "no-such-key"], "API key not found", "no-such-key")


# --------------------------------------------------------------------------- token


def _user_of(store: Store, secret: str) -> str:
    with read_session(store.engine) as session:
        return authenticate_token(session, secret).email


def test_token_create(store: Store) -> None:
    user_id = store.user("ada@example.com")

    created = ok_json("token", "create", "Ada@Example.com", "--days", "7")

    assert set(created) == {"tokenId", "token", "userId", "email", "expiresAt"}
    assert (created["userId"], created["email"]) == (user_id, "ada@example.com")
    assert created["token"].startswith("sgt_")
    assert close_to(created["expiresAt"], utcnow() + timedelta(days=7))
    assert _user_of(store, created["token"]) == "ada@example.com"
    assert not any(created["token"] in row for rows in snapshot(store).values() for row in rows)


def test_token_create_default_lifetime_is_30_days(store: Store) -> None:
    created = ok_json("token", "create", LOCAL_OWNER_EMAIL)
    assert close_to(created["expiresAt"], utcnow() + timedelta(days=30))


def test_token_human_output_prints_the_secret(store: Store) -> None:
    result = run("token", "create", LOCAL_OWNER_EMAIL, env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert f"for {LOCAL_OWNER_EMAIL}" in result.stdout
    assert "not shown again" in result.stdout
    secret = result.stdout.strip().splitlines()[-1].strip()
    assert secret.startswith("sgt_")
    assert _user_of(store, secret) == LOCAL_OWNER_EMAIL


def test_token_create_refuses_an_unknown_user(store: Store) -> None:
    refuse(store, ["token", "create", "ghost@example.com"], "User not found", "ghost@example.com")


def test_token_create_refuses_a_bad_email(store: Store) -> None:
    refuse(store, ["token", "create", "ghost"], "Not a valid email address")


@pytest.mark.parametrize("days", ["0", "3651"])
def test_token_create_refuses_a_bad_lifetime(store: Store, days: str) -> None:
    refuse(store, ["token", "create", LOCAL_OWNER_EMAIL, "--days", days], "between 1 and 3650")


def test_token_list_never_shows_the_secret(store: Store) -> None:
    store.user("ada@example.com")
    first = ok_json("token", "create", LOCAL_OWNER_EMAIL)
    second = ok_json("token", "create", "ada@example.com")

    listed = run("token", "list", "--json")
    human = run("token", "list", env={"COLUMNS": "250"})

    assert listed.exit_code == human.exit_code == 0
    rows = json.loads(listed.stdout)
    assert isinstance(rows, list)
    by_id = {row["tokenId"]: row for row in rows}
    assert set(by_id) == {first["tokenId"], second["tokenId"]}
    assert by_id[second["tokenId"]]["email"] == "ada@example.com"
    for created in (first, second):
        row = by_id[created["tokenId"]]
        assert set(row) == {"tokenId", "email", "prefix", "expiresAt", "revokedAt"}
        assert row["prefix"] == created["token"][:12]
        assert row["expiresAt"] == created["expiresAt"]
        assert row["revokedAt"] is None
        assert created["token"] not in listed.stdout
        assert created["token"] not in human.output
    assert "ada@example.com" in human.stdout


def test_token_revoke(store: Store) -> None:
    created = ok_json("token", "create", LOCAL_OWNER_EMAIL)

    revoked = ok_json("token", "revoke", created["tokenId"])

    assert revoked["tokenId"] == created["tokenId"]
    assert close_to(revoked["revokedAt"], utcnow())
    [row] = ok_json("token", "list")
    assert row["revokedAt"] == revoked["revokedAt"]
    with pytest.raises(NotAuthenticated):
        _user_of(store, created["token"])


def test_token_revoke_twice_is_refused(store: Store) -> None:
    created = ok_json("token", "create", LOCAL_OWNER_EMAIL)
    ok_json("token", "revoke", created["tokenId"])

    refuse(store, ["token", "revoke", created["tokenId"]], "already revoked")


def test_token_revoke_refuses_an_unknown_id(store: Store) -> None:
    refuse(store, ["token", "revoke", "no-such-token"], "Token not found", "no-such-token")


# --------------------------------------------------------------------------- errors as JSON


def test_admin_json_error_is_an_object_on_stderr(store: Store) -> None:
    before = snapshot(store)

    result = run("user", "create", LOCAL_OWNER_EMAIL, "--json")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert json.loads(result.stderr) == {
        "success": False,
        "message": f"A user with email {LOCAL_OWNER_EMAIL} already exists",
    }
    assert snapshot(store) == before


@pytest.mark.xfail(
    reason="BUG: '-5' is taken for an unknown option and reported as 'Unexpected error: No "
    "such option: -5' (exit 1) instead of a usage error (exit 2): SocialgenGroup does not "
    "recognise typer 0.29's vendored click exceptions",
    strict=True,
)
def test_negative_quota_without_separator_is_a_usage_error(store: Store) -> None:
    result = run("workspace", "quota", "Personal", "-5")

    assert result.exit_code == 2
    assert "Unexpected error" not in result.output
