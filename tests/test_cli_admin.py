"""`socialgen workspace|user|member|key|token ...`, driven through the real CLI app.

Every error case checks: non-zero exit, the key words of the message, no traceback,
and that no table of the store changed.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, col
from typer.testing import CliRunner, Result

from socialgen.auth.service import authenticate_api_key, authenticate_token
from socialgen.cli.main import app
from socialgen.kit.clock import parse_iso, utcnow
from socialgen.kit.errors import NotAuthenticated
from socialgen.store.engine import read_session
from socialgen.store.tables import ApiKey, Membership, User, Workspace, WorkspaceUsage
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from tests.conftest import Store
from tests.terminal_support import A_TERMINAL

runner = CliRunner()


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
    role: str | None = store.scalar(
        sa.select(col(Membership.role)).where(
            col(Membership.workspace_id) == workspace_id, col(Membership.user_id) == user_id
        )
    )
    return role


def close_to(text: str, moment: datetime, delta: timedelta = timedelta(minutes=2)) -> bool:
    return abs(parse_iso(text) - moment) < delta


# --------------------------------------------------------------------------- workspace


def test_workspace_create_and_list(store: Store) -> None:
    created = ok_json("workspace", "create", "  Agency  ")

    assert set(created) == {"workspaceId", "name"}
    assert created["name"] == "Agency"
    assert (
        store.scalar(
            sa.select(col(Workspace.name)).where(col(Workspace.id) == created["workspaceId"])
        )
        == "Agency"
    )
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

    # The same for a person.
    human_create = run("workspace", "create", "Studio")
    assert human_create.exit_code == 0, human_create.output
    assert "Created workspace 'Studio'" in human_create.stdout

    table = run("workspace", "list", env={"COLUMNS": "250", **A_TERMINAL})

    assert table.exit_code == 0, table.output
    assert "Workspaces" in table.stdout
    assert "Personal" in table.stdout
    assert "Agency" in table.stdout
    assert "Studio" in table.stdout
    assert f"│ {store.workspace_id[:8]} " in table.stdout  # its short id

    quota = run("workspace", "quota", "Personal", "unlimited")
    assert quota.exit_code == 0, quota.output
    assert f"Post quota of {store.workspace_id}: unlimited" in quota.stdout


def test_workspace_create_refuses_a_bad_name(store: Store) -> None:
    for name in ("", "   "):
        refuse(store, ["workspace", "create", name], "Workspace name is required")
    refuse(store, ["workspace", "create", "w" * 201], "longer than 200")


def test_workspace_quota_set_by_id_and_name_and_unlimited(store: Store) -> None:
    other = store.workspace("Agency")

    by_id = ok_json("workspace", "quota", other, "25")
    assert by_id == {"workspaceId": other, "postQuota": 25, "postsUsed": 0}
    assert (
        store.scalar(
            sa.select(col(WorkspaceUsage.post_quota)).where(
                col(WorkspaceUsage.workspace_id) == other
            )
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
            sa.select(col(WorkspaceUsage.post_quota)).where(
                col(WorkspaceUsage.workspace_id) == other
            )
        )
        is None
    )


def test_workspace_quota_refusals(store: Store) -> None:
    ok_json("workspace", "quota", "Personal", "10")
    refuse(store, ["workspace", "quota", "Personal", "--", "-5"], "0 or more")
    refuse(store, ["workspace", "quota", "Personal", "-5"], "-5")  # read as an option
    for quota in ("many", "1.5", "", "10 posts"):
        refuse(store, ["workspace", "quota", "Personal", quota], "whole number or 'unlimited'")
    refuse(store, ["workspace", "quota", "Nowhere", "5"], "Workspace not found", "Nowhere")
    assert ok_json("workspace", "list")[0]["postQuota"] == 10


# --------------------------------------------------------------------------- user


def test_user_create_and_list(store: Store) -> None:
    created = ok_json("user", "create", " Ada@Example.COM ", "--name", "Ada Lovelace")

    assert set(created) == {"userId", "email", "name"}
    assert (created["email"], created["name"]) == ("ada@example.com", "Ada Lovelace")
    assert store.scalar(sa.select(col(User.email)).where(col(User.id) == created["userId"])) == (
        "ada@example.com"
    )
    listed = ok_json("user", "list")
    assert isinstance(listed, list)
    by_email = {row["email"]: row for row in listed}
    assert set(by_email) == {LOCAL_OWNER_EMAIL, "ada@example.com"}
    assert by_email["ada@example.com"]["userId"] == created["userId"]
    assert set(by_email["ada@example.com"]) == {"userId", "email", "name", "createdAt"}
    assert by_email["ada@example.com"]["name"] == "Ada Lovelace"

    assert ok_json("user", "create", "bob@example.com")["name"] is None

    # The same for a person.
    human_create = run("user", "create", "carol@example.com")
    assert human_create.exit_code == 0, human_create.output
    assert "Created user carol@example.com" in human_create.stdout

    table = run("user", "list", env={"COLUMNS": "200", **A_TERMINAL})

    assert table.exit_code == 0, table.output
    assert "Users" in table.stdout
    assert "carol@example.com" in table.stdout
    assert LOCAL_OWNER_EMAIL in table.stdout


def test_user_create_refusals(store: Store) -> None:
    for email in ("not-an-email", "a@b c", "@example.com", "ada@", ""):
        refuse(store, ["user", "create", email], "Not a valid email address")
    for email in ("owner@localhost", "  OWNER@Localhost "):
        refuse(store, ["user", "create", email], "already exists", "owner@localhost")
    refuse(store, ["user", "create", "bob@example.com", "--name", "  "], "User name is required")
    assert [row["email"] for row in ok_json("user", "list")] == [LOCAL_OWNER_EMAIL]


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

    listed = run("member", "list", "Personal", env={"COLUMNS": "200", **A_TERMINAL})

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


def test_member_refusals(store: Store) -> None:
    store.user("ada@example.com")
    for role in ("boss", "", "owners"):
        refuse(
            store,
            ["member", "add", "Personal", "ada@example.com", "--role", role],
            "Unknown role",
            "owner, admin, member",
        )
    refuse(store, ["member", "add", "Personal", "ghost@example.com"], "User not found", "ghost")
    refuse(store, ["member", "add", "Personal", "ghost"], "Not a valid email address")
    refuse(store, ["member", "remove", "Personal", "ghost@example.com"], "User not found")
    refuse(store, ["member", "remove", "Personal", "ada@example.com"], "not a member")
    for args in (
        ["member", "add", "Nowhere", "ada@example.com"],
        ["member", "remove", "Nowhere", LOCAL_OWNER_EMAIL],
        ["member", "list", "Nowhere"],
    ):
        refuse(store, args, "Workspace not found", "Nowhere")


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
    stored = store.scalar(sa.select(col(ApiKey.key_hash)).where(col(ApiKey.id) == created["keyId"]))
    assert stored == hashlib.sha256(created["apiKey"].encode()).hexdigest()
    assert not any(created["apiKey"] in row for rows in snapshot(store).values() for row in rows)


def test_key_create_unbound_or_for_another_workspace(store: Store) -> None:
    unbound = ok_json("key", "create", "--any-workspace")

    assert unbound["workspaceId"] is None
    assert unbound["name"] is None
    assert _authenticates(store, unbound["apiKey"]) is None

    other = store.workspace("Agency")

    assert ok_json("key", "create", "-w", "Agency")["workspaceId"] == other
    assert ok_json("key", "create", "--workspace", other)["workspaceId"] == other
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
    refuse(store, ["key", "revoke", "no-such-key"], "API key not found", "no-such-key")

    revoked = ok_json("key", "revoke", created["keyId"])

    assert set(revoked) == {"keyId", "revokedAt"}
    assert revoked["keyId"] == created["keyId"]
    assert close_to(revoked["revokedAt"], utcnow())
    [row] = ok_json("key", "list")
    assert row["revokedAt"] == revoked["revokedAt"]
    with pytest.raises(NotAuthenticated, match="revoked"):
        _authenticates(store, created["apiKey"])
    refuse(store, ["key", "revoke", created["keyId"]], "already revoked")


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

    default = ok_json("token", "create", LOCAL_OWNER_EMAIL)  # 30 days unless told
    assert close_to(default["expiresAt"], utcnow() + timedelta(days=30))

    # The same for a person: the secret is printed on its last line.
    result = run("token", "create", LOCAL_OWNER_EMAIL, env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert f"for {LOCAL_OWNER_EMAIL}" in result.stdout
    assert "not shown again" in result.stdout
    secret = result.stdout.strip().splitlines()[-1].strip()
    assert secret.startswith("sgt_")
    assert _user_of(store, secret) == LOCAL_OWNER_EMAIL


def test_token_create_refusals(store: Store) -> None:
    refuse(store, ["token", "create", "ghost@example.com"], "User not found", "ghost@example.com")
    refuse(store, ["token", "create", "ghost"], "Not a valid email address")
    for days in ("0", "3651"):
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
    refuse(store, ["token", "revoke", "no-such-token"], "Token not found", "no-such-token")

    revoked = ok_json("token", "revoke", created["tokenId"])

    assert set(revoked) == {"tokenId", "revokedAt"}
    assert revoked["tokenId"] == created["tokenId"]
    assert close_to(revoked["revokedAt"], utcnow())
    [row] = ok_json("token", "list")
    assert row["revokedAt"] == revoked["revokedAt"]
    with pytest.raises(NotAuthenticated):
        _user_of(store, created["token"])
    refuse(store, ["token", "revoke", created["tokenId"]], "already revoked")


# --------------------------------------------------------------------------- errors as JSON


def test_admin_json_error_is_an_object_on_stdout(store: Store) -> None:
    before = snapshot(store)

    result = run("user", "create", LOCAL_OWNER_EMAIL, "--json")

    assert result.exit_code == 1
    assert result.stderr == ""
    assert json.loads(result.stdout) == {
        "success": False,
        "message": f"A user with email {LOCAL_OWNER_EMAIL} already exists",
    }
    assert snapshot(store) == before


def test_negative_quota_without_separator_is_a_usage_error(store: Store) -> None:
    before = snapshot(store)

    result = run("workspace", "quota", "Personal", "-5")

    assert result.exit_code == 2
    assert "Unexpected error" not in result.output
    assert "No such option: -5" in result.output
    assert snapshot(store) == before
