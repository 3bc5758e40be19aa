"""Ids and names as a person types them, through the real CLI: any unique prefix of an
id (6 characters or more, any case, with or without a UUID's dashes), a name for the
named kinds (styles, workspaces, carousels, accounts), the matches listed when a
prefix or a name fits several, the words asked repeated when nothing fits; listings
at 80 columns show each id as its short unique prefix on one line, pipes and --json
the whole id.

Rows are written with chosen ids (straight through the tables) so that prefixes are
shared where a test needs it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlmodel import select
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.publishing.secrets import encrypt_secret
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import (
    AccessToken,
    ApiKey,
    Carousel,
    ContentStyle,
    Conversation,
    Post,
    SocialAccount,
    Workspace,
)
from tests.conftest import Store, days_ahead
from tests.keys_support import keys_now
from tests.scripted_support import ScriptedAI
from tests.terminal_support import A_TERMINAL, run_in_pipe

# Two ids sharing their first 8 characters (short forms: 9 characters), one alone.
TWIN_A = "a7c0e1f2a3b4c5d6e7f8091a2b3c4d5e"
TWIN_B = "a7c0e1f2b3b4c5d6e7f8091a2b3c4d5e"
LONE = "5e1f00d2c3b4a5968778695a4b3c2d1e"
LONE_DASHED = "5e1f00d2-c3b4-a596-8778-695a4b3c2d1e"
NARROW = {"COLUMNS": "80", **A_TERMINAL}  # a person's 80-column terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")  # rich's bold headers (NO_COLOR keeps them)
runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    result = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in result.output, result.output
    return result


def fails(result: Result, *words: str) -> str:
    """The error's text, after checking exit 1 and that it says each of `words`."""
    assert result.exit_code == 1, result.output
    for word in words:
        assert word in result.stderr, result.stderr
    return result.stderr


def put(store: Store, *rows: Any) -> None:
    with transaction(store.engine) as session:
        for row in rows:
            session.add(row)
            session.flush()  # in order: a row may refer to the one before


def post(store: Store, post_id: str, content: str) -> Post:
    return Post(id=post_id, workspace_id=store.workspace_id, content=content)


def table_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("│")]


def first_cells(output: str) -> list[str]:
    return [line.split("│")[1].strip() for line in table_lines(output)]


# --------------------------------------------------------------------------- posts


def test_a_post_is_found_by_any_unique_prefix_any_case_or_dashed(store: Store) -> None:
    put(store, post(store, TWIN_A, "first twin"), post(store, TWIN_B, "second twin"))
    put(store, post(store, LONE, "the lone post"))

    for asked in ("5e1f00", "5E1F00D2", LONE_DASHED, LONE_DASHED.upper(), LONE):
        shown = run("posts", "show", asked, "--json")
        assert shown.exit_code == 0, (asked, shown.output)
        assert json.loads(shown.stdout)["id"] == LONE
    assert json.loads(run("posts", "show", "a7c0e1f2b", "--json").stdout)["id"] == TWIN_B
    last = "ffffff" + "0" * 26  # a prefix with no hex number after it: no upper bound
    put(store, post(store, last, "the last id there is"))
    assert json.loads(run("posts", "show", "FFFFFF", "--json").stdout)["id"] == last

    edited = run("posts", "edit", "5e1f00", "--content", "changed by prefix")
    assert edited.exit_code == 0, edited.output
    with read_session(store.engine) as session:
        changed = session.get(Post, LONE)
        assert changed is not None and changed.content == "changed by prefix"


def test_an_ambiguous_prefix_lists_the_matches_and_changes_nothing(store: Store) -> None:
    put(store, post(store, TWIN_A, "first twin"), post(store, TWIN_B, "second twin"))

    text = fails(run("posts", "edit", "A7C0E1", "--content", "which one?"), "A7C0E1")
    assert TWIN_A in text and TWIN_B in text
    assert "first twin" in text and "second twin" in text
    as_json = run("posts", "delete", "a7c0e1f2", "--yes", "--json")
    assert as_json.exit_code == 1
    message = json.loads(as_json.stdout)["message"]
    assert "a7c0e1f2" in message and TWIN_A in message and TWIN_B in message
    with read_session(store.engine) as session:
        assert [p.content for p in session.exec(select(Post).order_by(Post.id))] == [
            "first twin",
            "second twin",
        ]


def test_not_found_repeats_what_was_asked_and_short_prefixes_are_refused(store: Store) -> None:
    put(store, post(store, LONE, "the lone post"))

    fails(run("posts", "show", "a7c0zz"), "Post not found: a7c0zz")
    fails(run("posts", "show", "5e1f0"), "Post not found: 5e1f0", "at least 6 characters")
    fails(run("posts", "delete", "5e1f00d3", "--yes"), "Post not found: 5e1f00d3")
    fails(run("posts", "schedule", "zz%_zz", "--at", "2099-01-01T09:00Z"), "not found: zz%_zz")


def test_the_posts_table_shows_short_ids_whole_at_80_columns(store: Store) -> None:
    long_text = "A post long enough to fill a narrow terminal's table many times over " * 3
    put(store, post(store, TWIN_A, long_text), post(store, TWIN_B, long_text))
    put(store, post(store, LONE, long_text))

    table = run("posts", "recent", env=NARROW)

    assert table.exit_code == 0, table.output
    assert all(len(ANSI.sub("", line)) <= 80 for line in table.stdout.splitlines())
    ids = [cell for cell in first_cells(table.stdout) if cell]
    assert sorted(ids) == ["5e1f00d2", "a7c0e1f2a", "a7c0e1f2b"]  # one line each, never cut
    for short in ids:  # and each is what a command takes
        assert run("posts", "show", short, "--json").exit_code == 0

    piped = run_in_pipe("posts", "recent")
    assert piped.returncode == 0, piped.stderr
    assert sorted(line.split("\t")[0] for line in piped.stdout.splitlines()) == sorted(
        [TWIN_A, TWIN_B, LONE]
    )
    as_json = json.loads(run("posts", "recent", "--json").stdout)
    assert sorted(p["id"] for p in as_json["posts"]) == sorted([TWIN_A, TWIN_B, LONE])


# --------------------------------------------------------------------------- conversations

CONVERSATION = "c0ffee00d1e2f3a4b5c6d7e8f9a0b1c2"


def test_conversations_show_ids_that_chat_takes_back(store: Store, scripted_ai: ScriptedAI) -> None:
    title = "Why small teams ship every week, and what they stop doing to manage it"
    put(store, Conversation(id=CONVERSATION, workspace_id=store.workspace_id, title=title))

    listed = run("conversations", env=NARROW)
    assert listed.exit_code == 0, listed.output
    assert "…" not in "".join(first_cells(listed.stdout))
    shown = [cell for cell in first_cells(listed.stdout) if cell]
    assert shown == ["c0ffee00"]

    scripted_ai.intent = "chat"
    for asked in (shown[0], "C0FFEE"):
        answer = scripted_ai.invoke(["chat", "And the numbers?", "--conversation", asked, "--json"])
        assert answer.exit_code == 0, answer.output
        last = json.loads(answer.stdout.splitlines()[-1])
        assert last["data"]["conversationId"] == CONVERSATION

    missing = scripted_ai.invoke(["chat", "hello", "--conversation", "c0ffzz"])
    fails(missing, "Conversation not found: c0ffzz")


# --------------------------------------------------------------------------- styles


def style(store: Store, style_id: str, name: str) -> ContentStyle:
    return ContentStyle(id=style_id, workspace_id=store.workspace_id, name=name)


def test_a_style_is_taken_by_name_any_case_or_id_prefix(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    put(store, style(store, LONE, "Dry founder"))

    for asked in ("Dry founder", "dry FOUNDER", "5E1F00", LONE_DASHED):
        shown = run("style", "show", asked, "--json")
        assert shown.exit_code == 0, (asked, shown.output)
        assert json.loads(shown.stdout)["_id"] == LONE

    written = scripted_ai.invoke(["post", "shipping weekly", "--style", "Dry founder", "--json"])
    assert written.exit_code == 0, written.output
    sent = " ".join(m["content"] for m in scripted_ai.calls_for("post")[-1].messages)
    assert 'Write in the style "Dry founder"' in sent

    fails(run("style", "show", "Wet founder"), "Content style not found: Wet founder")
    for command in (["post", "x"], ["calendar", "7", "--prompt", "x"], ["carousel", "create", "x"]):
        missing = scripted_ai.invoke([*command, "--style", "Wet founder"])
        fails(missing, "Content style not found: Wet founder")
    assert scripted_ai.calls_for("post")[1:] == []  # nothing written for them


def test_a_name_or_prefix_of_several_styles_lists_them(store: Store) -> None:
    put(store, style(store, TWIN_A, "Twin"), style(store, TWIN_B, "twin"))

    text = fails(run("style", "delete", "TWIN", "--yes"), "Several content styles", "'TWIN'")
    assert TWIN_A in text and TWIN_B in text
    exact = run("style", "show", "twin", "--json")  # the exact spelling picks one
    assert json.loads(exact.stdout)["_id"] == TWIN_B
    fails(run("style", "show", "a7c0e1f2"), TWIN_A, TWIN_B)

    listed = run("style", "list", env=NARROW)
    assert sorted(cell for cell in first_cells(listed.stdout) if cell) == [
        "a7c0e1f2a",
        "a7c0e1f2b",
    ]
    with read_session(store.engine) as session:
        assert len(session.exec(select(ContentStyle)).all()) == 2


# --------------------------------------------------------------------------- workspaces


def test_a_workspace_is_taken_by_name_any_case_or_id_prefix(store: Store) -> None:
    put(store, post(store, LONE, "in the default workspace"))

    for asked in ("Personal", "personal", store.workspace_id[:6].upper()):
        listed = run("posts", "recent", "-w", asked, "--json")
        assert listed.exit_code == 0, (asked, listed.output)
        assert [p["id"] for p in json.loads(listed.stdout)["posts"]] == [LONE]
    assert run("posts", "show", "5e1f00", "-w", "PERSONAL").exit_code == 0

    put(store, Workspace(id=TWIN_A, name="Twin"), Workspace(id=TWIN_B, name="Twin"))
    text = fails(run("posts", "recent", "-w", "Twin"), "Several workspaces are named 'Twin'")
    assert TWIN_A in text and TWIN_B in text
    fails(run("style", "list", "-w", "a7c0e1"), TWIN_A, TWIN_B)
    fails(run("posts", "recent", "-w", "Nowhere"), "Workspace not found: Nowhere")

    listed = run("workspace", "list", env=NARROW)
    assert listed.exit_code == 0, listed.output
    cells = [cell for cell in first_cells(listed.stdout) if cell]
    assert {"a7c0e1f2a", "a7c0e1f2b"} <= set(cells)
    assert all(len(cell) < 32 for cell in cells)


# --------------------------------------------------------------------------- carousels


def carousel(store: Store, carousel_id: str, name: str) -> Carousel:
    return Carousel(
        id=carousel_id,
        workspace_id=store.workspace_id,
        name=name,
        prompt="p",
        template="minimal",
        pdf_file=f"carousels/{carousel_id}/carousel.pdf",
        thumbnail_file=f"carousels/{carousel_id}/thumbnail.png",
    )


def test_a_carousel_is_taken_by_name_or_id_prefix(store: Store) -> None:
    put(store, carousel(store, LONE, "Launch deck"))
    put(store, carousel(store, TWIN_A, "Twin deck"), carousel(store, TWIN_B, "twin deck"))

    for asked in ("Launch deck", "LAUNCH DECK", "5e1f00", LONE_DASHED):
        shown = run("carousel", "show", asked, "--json")
        assert shown.exit_code == 0, (asked, shown.output)
        assert json.loads(shown.stdout)["carouselId"] == LONE
    text = fails(run("carousel", "show", "TWIN DECK"), "Several carousels are named")
    assert TWIN_A in text and TWIN_B in text
    fails(run("carousel", "show", "No deck"), "Carousel not found: No deck")
    fails(
        run("carousel", "regenerate-slide", "a7c0e1f2", "0", "a new picture"),
        "a7c0e1f2",
        TWIN_A,
    )

    listed = run("carousel", "list", env=NARROW)
    assert sorted(c for c in first_cells(listed.stdout) if c) == [
        "5e1f00d2",
        "a7c0e1f2a",
        "a7c0e1f2b",
    ]


# --------------------------------------------------------------------------- accounts


def account(store: Store, account_id: str, handle: str, name: str) -> SocialAccount:
    return SocialAccount(
        id=account_id,
        workspace_id=store.workspace_id,
        network="bluesky",
        handle=handle,
        display_name=name,
        service_url="https://bsky.social",
        secret_ciphertext=sealed(store),
    )


def sealed(store: Store) -> str:
    with read_session(store.engine) as session:
        return encrypt_secret({"password": "pw-secret-1234"}, session, keys_now())


def test_an_account_is_taken_by_display_name_handle_or_id_prefix(store: Store) -> None:
    put(
        store,
        account(store, TWIN_A, "ada.bsky.social", "Ada Lovelace"),
        account(store, TWIN_B, "grace.bsky.social", "Grace Hopper"),
        account(store, LONE, "alan.bsky.social", "Alan Turing"),
    )

    text = fails(run("accounts", "remove", "a7c0e1", "--yes"), "a7c0e1", "ada.bsky.social")
    assert TWIN_A in text and TWIN_B in text
    fails(run("accounts", "remove", "Charles Babbage", "--yes"), "not found: Charles Babbage")

    listed = run("accounts", "list", env=NARROW)
    assert sorted(c for c in first_cells(listed.stdout) if c) == [
        "5e1f00d2",
        "a7c0e1f2a",
        "a7c0e1f2b",
    ]
    for asked, gone in (
        ("ada lovelace", TWIN_A),
        ("A7C0E1F2B", TWIN_B),
        ("@alan.bsky.social", LONE),
    ):
        removed = run("accounts", "remove", asked, "--yes", "--json")
        assert removed.exit_code == 0, (asked, removed.output)
        assert json.loads(removed.stdout)["account"]["id"] == gone
    with read_session(store.engine) as session:
        assert session.exec(select(SocialAccount)).all() == []


def test_publish_takes_a_post_prefix_and_accounts_by_name(store: Store) -> None:
    put(store, post(store, LONE, "Shipping weekly beats shipping perfect."))
    put(store, account(store, TWIN_A, "ada.bsky.social", "Ada Lovelace"))
    put(store, account(store, TWIN_B, "grace.bsky.social", "Grace Hopper"))

    preview = run(
        "posts", "publish", "5E1F00", "--to", "ada lovelace", "--to", "A7C0E1F2B",
        "--dry-run", "--json",
    )  # fmt: skip

    assert preview.exit_code == 0, preview.output
    shown = json.loads(preview.stdout)
    assert shown["postId"] == LONE
    assert [n["accountId"] for n in shown["networks"]] == [TWIN_A, TWIN_B]
    fails(run("posts", "publish", "5e1f00", "--to", "a7c0e1", "--dry-run"), TWIN_A, TWIN_B)


# --------------------------------------------------------------------------- keys and tokens


def test_keys_and_tokens_are_revoked_by_id_prefix(store: Store) -> None:
    put(
        store,
        ApiKey(id=TWIN_A, name="ci", prefix="sg_1", key_hash="1" * 64),
        ApiKey(id=TWIN_B, name="laptop", prefix="sg_2", key_hash="2" * 64),
        AccessToken(
            id=LONE,
            user_id=store.owner_id,
            prefix="tk_1",
            token_hash="3" * 64,
            expires_at=days_ahead(1),
        ),
    )

    fails(run("key", "revoke", "a7c0e1"), TWIN_A, TWIN_B)
    assert run("key", "revoke", "LAPTOP").exit_code == 0
    assert run("token", "revoke", "5e1f00").exit_code == 0
    with read_session(store.engine) as session:
        assert session.get(ApiKey, TWIN_A).revoked_at is None  # type: ignore[union-attr]
        assert session.get(ApiKey, TWIN_B).revoked_at is not None  # type: ignore[union-attr]
        assert session.get(AccessToken, LONE).revoked_at is not None  # type: ignore[union-attr]
    keys = run("key", "list", env=NARROW)
    assert re.search(r"│ a7c0e1f2a\s", keys.stdout), keys.stdout
