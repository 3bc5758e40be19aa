"""`socialgen style ...` (and `socialgen post --style`), driven through the real CLI app.

Every error case checks: exit code 1, the message (on stderr; as a JSON payload with
--json), no traceback, and that no table of the store changed. Profiles are imported
from a real HTTP server on 127.0.0.1 (reached with SOCIALGEN_ALLOW_PRIVATE_URLS=1);
a fake resolver answers every name lookup, so nothing here touches the internet.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, col
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.sources import guard
from socialgen.store.tables import ContentStyle, StylePost
from socialgen.styles.profile import derive_profile, describe_profile
from tests.conftest import Store
from tests.scripted_support import ScriptedAI
from tests.terminal_support import A_TERMINAL, run_at_terminal
from tests.test_styles_api import FOUNDER_POSTS

STYLE_KEYS = {
    "_id",
    "name",
    "description",
    "workspaceId",
    "userId",
    "posts",
    "createdAt",
    "updatedAt",
}
NOT_FOUND = "Content style not found"
POST_NOT_FOUND = "Style post not found"
SOURCES = "Give the posts as arguments, or with --file, or with --from-profile"
LINKEDIN_REFUSAL = (
    "LinkedIn does not show posts to anonymous visitors: set "
    "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT to a profile-scraping service to import from LinkedIn"
)

runner = CliRunner()


@pytest.fixture(autouse=True)
def _cli_environment(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Wide output; no real DNS and no private addresses unless a test asks
    (`allow_private`)."""
    monkeypatch.setenv("COLUMNS", "250")
    answers: dict[str, list[str]] = {}

    def resolve(host: str, port: int) -> list[str]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return answers[host]

    monkeypatch.setattr(guard, "resolve", resolve)
    for name in (
        guard.ALLOW_PRIVATE_ENV,
        "SOCIALGEN_BLUESKY_APPVIEW",
        "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT",
    ):
        monkeypatch.delenv(name, raising=False)
    return answers


@pytest.fixture
def allow_private(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")


# --------------------------------------------------------------------------- a local feed


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, tuple[bytes, str]]
    seen: list[str]

    def do_GET(self) -> None:
        self.seen.append(self.path)
        route = self.routes.get(self.path)
        if route is None:
            self.send_error(404, "Not Found")
            return
        body, content_type = route
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class FeedServer:
    def __init__(self, base: str, routes: dict[str, tuple[bytes, str]], seen: list[str]) -> None:
        self.base = base
        self.routes = routes
        self.seen = seen

    def url(self, path: str) -> str:
        return self.base + path

    def serve(self, path: str, body: str, content_type: str = "application/rss+xml") -> str:
        self.routes[path] = (body.encode(), content_type)
        return self.url(path)


@pytest.fixture
def feeds() -> Iterator[FeedServer]:
    routes: dict[str, tuple[bytes, str]] = {}
    seen: list[str] = []
    handler = type("BoundHandler", (_Handler,), {"routes": routes, "seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield FeedServer(f"http://127.0.0.1:{httpd.server_address[1]}", routes, seen)
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


# Seven dated items, deliberately out of order: the newest five are 10, 9, 8, 7, 6 April.
FEED_ITEMS = [(7, "Seventh"), (2, "Second"), (10, "Tenth"), (5, "Fifth"), (9, "Ninth")]
FEED_ITEMS += [(8, "Eighth"), (6, "Sixth")]
NEWEST_FIVE = [f"{word} post about shipping." for word in ("Tenth", "Ninth", "Eighth")]
NEWEST_FIVE += [f"{word} post about shipping." for word in ("Seventh", "Sixth")]


def rss_feed(items: list[tuple[int, str]] = FEED_ITEMS) -> str:
    entries = "".join(
        f"<item><title>{word}</title><link>https://dana.example/{day}</link>"
        f"<pubDate>{['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][(day + 6) % 7]}, "
        f"{day:02d} Apr 2024 09:00:00 GMT</pubDate>"
        f"<description>{word} post about shipping.</description></item>"
        for day, word in items
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
        f"<title>Dana</title><link>https://dana.example/</link>{entries}</channel></rss>"
    )


# --------------------------------------------------------------------------- helpers


def run(
    *args: str,
    input: str | None = None,
    ai: ScriptedAI | None = None,
    env: dict[str, str] | None = None,
) -> Result:
    """The real CLI app; with `ai`, given the scripted models (a command that writes)."""
    if ai is not None:
        return ai.invoke(args, input=input)
    return runner.invoke(app, list(args), input=input, env=env)


def ok(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    result = run(*args, input=input, env=env)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def ok_json(*args: str) -> Any:
    return json.loads(ok(*args, "--json").stdout)


def flat(text: str) -> str:
    """Whitespace collapsed, so wrapped or indented output still matches."""
    return " ".join(text.split())


def snapshot(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to prove a refused command changed nothing."""
    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in SQLModel.metadata.sorted_tables
        }


def refuse(
    store: Store,
    args: list[str],
    message: str,
    *,
    input: str | None = None,
    ai: ScriptedAI | None = None,
) -> None:
    """The command fails with exit 1 and `message`, for a person and with --json,
    and leaves every table of the store as it was."""
    before = snapshot(store)

    for_a_person = run(*args, input=input, ai=ai)
    assert for_a_person.exit_code == 1, (args, for_a_person.output)
    assert "Traceback" not in for_a_person.output, for_a_person.output
    assert isinstance(for_a_person.exception, SystemExit), repr(for_a_person.exception)
    error = flat(for_a_person.stderr).partition("Error: ")[2]
    assert message in error, (args, for_a_person.stderr)
    assert message not in for_a_person.stdout

    as_json = run(*args, "--json", input=input, ai=ai)
    assert as_json.exit_code == 1, (args, as_json.output)
    assert "Traceback" not in as_json.output, as_json.output
    payload = json.loads(as_json.stdout.strip().splitlines()[-1])
    assert payload["success"] is False
    assert message in payload["message"], (args, payload)

    assert snapshot(store) == before, args


def count(store: Store, model: Any) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(model)))


def create(name: str = "Founder", *extra: str) -> dict[str, Any]:
    data: dict[str, Any] = ok_json("style", "create", name, *extra)
    return data


def founder(store: Store, posts: list[str] = FOUNDER_POSTS) -> dict[str, Any]:
    """A style taught with `posts`, as `style show --json` gives it."""
    style = create("Founder", "--description", "Punchy founder voice")
    ok_json("style", "add-posts", style["_id"], *posts)
    shown: dict[str, Any] = ok_json("style", "show", style["_id"])
    return shown


def stored_profile(store: Store, style_id: str) -> Any:
    return store.scalar(
        sa.select(col(ContentStyle.profile)).where(col(ContentStyle.id) == style_id)
    )


# --------------------------------------------------------------------------- create / list / show


def test_create_list_and_show(store: Store) -> None:
    created = create("Founder", "--description", "  Punchy founder voice  ")
    assert set(created) == STYLE_KEYS
    assert created["name"] == "Founder"
    assert created["description"] == "Punchy founder voice"
    assert created["workspaceId"] == store.workspace_id
    assert created["userId"] == store.owner_id
    assert created["posts"] == []
    plain = create("Plain")
    assert plain["description"] is None

    human = ok("style", "create", "Third")
    assert re.search(r"Created style 'Third': \S+", human.stdout), human.stdout
    assert count(store, ContentStyle) == 3

    listed = ok_json("style", "list")
    assert [s["name"] for s in listed] == ["Founder", "Plain", "Third"]
    assert listed[0] == created
    table = ok("style", "list", env=A_TERMINAL).stdout
    assert "Content styles" in table
    for name in ("Founder", "Plain", "Third", "Punchy founder voice", created["_id"][:8]):
        assert name in table  # the id as its short unique prefix

    shown = ok_json("style", "show", created["_id"])
    assert shown == {**created, "profile": None}
    person = ok("style", "show", created["_id"]).stdout
    assert "Founder" in person and created["_id"] in person
    assert "Punchy founder voice" in person
    assert "No example posts yet" in person
    assert "Derived profile" not in person


def test_list_of_an_empty_workspace(store: Store) -> None:
    assert ok_json("style", "list") == []
    assert "Content styles: none." in ok("style", "list", env=A_TERMINAL).stdout


def test_show_prints_the_derived_profile_once_examples_exist(store: Store) -> None:
    shown = founder(store)
    assert [p["content"] for p in shown["posts"]] == FOUNDER_POSTS
    assert shown["profile"] is not None
    assert shown["profile"]["examples"] == 3
    assert shown["profile"] == stored_profile(store, shown["_id"])

    person = flat(ok("style", "show", shown["_id"]).stdout)
    assert "Derived profile" in person
    assert "No example posts yet" not in person
    guidance = describe_profile(derive_profile(FOUNDER_POSTS))
    assert guidance
    for line in guidance:
        assert flat(f"• {line}") in person, (line, person)
    for post in shown["posts"]:
        assert flat(post["content"].splitlines()[0]) in person

    listed = ok("style", "list", env=A_TERMINAL).stdout
    assert re.search(rf"{shown['_id'][:8]}\s*│\s*Founder\s*│\s*3\s*│", listed), listed


def test_create_refusals(store: Store) -> None:
    refuse(store, ["style", "create", ""], "Content style name is required")
    refuse(store, ["style", "create", "   "], "Content style name is required")
    refuse(store, ["style", "create", "x" * 201], "Content style name is longer than 200")
    refuse(
        store,
        ["style", "create", "Ok", "--description", "d" * 2001],
        "Description is longer than 2000 characters",
    )
    assert count(store, ContentStyle) == 0


# --------------------------------------------------------------------------- edit / delete


def test_edit_name_and_description(store: Store) -> None:
    style = create("Founder", "--description", "Punchy")
    sid = style["_id"]

    renamed = ok_json("style", "edit", sid, "--name", "  Founder v2 ")
    assert (renamed["name"], renamed["description"]) == ("Founder v2", "Punchy")

    described = ok_json("style", "edit", sid, "--description", "Calmer now")
    assert (described["name"], described["description"]) == ("Founder v2", "Calmer now")

    both = ok("style", "edit", sid, "--name", "Both", "--description", "Both changed")
    assert f"Updated style {sid}" in both.stdout

    cleared = ok_json("style", "edit", sid, "--description", "")
    assert (cleared["name"], cleared["description"]) == ("Both", None)
    assert ok_json("style", "show", sid)["description"] is None
    assert count(store, ContentStyle) == 1


def test_edit_refusals(store: Store) -> None:
    sid = create("Founder", "--description", "Punchy")["_id"]
    refuse(store, ["style", "edit", sid], "Nothing to change: give --name and/or --description")
    refuse(store, ["style", "edit", sid, "--name", ""], "Content style name is required")
    refuse(store, ["style", "edit", sid, "--name", "  "], "Content style name is required")
    shown = ok_json("style", "show", sid)
    assert (shown["name"], shown["description"]) == ("Founder", "Punchy")


def test_delete_with_yes_and_with_confirmation(store: Store) -> None:
    keep = founder(store)
    other = create("Other")["_id"]
    ok_json("style", "add-posts", other, "Another voice entirely.")

    before = snapshot(store)
    declined = run_at_terminal("style", "delete", keep["_id"], answer="n\n")
    assert declined.returncode == 1, declined.stderr
    assert "Traceback" not in declined.stderr
    assert "Delete style 'Founder' and its examples?" in declined.stderr
    assert "Aborted" in declined.stderr
    assert snapshot(store) == before

    confirmed = run_at_terminal("style", "delete", keep["_id"], answer="y\n")
    assert confirmed.returncode == 0, confirmed.stderr
    assert f"Deleted style {keep['_id']}" in confirmed.stdout
    assert [s["_id"] for s in ok_json("style", "list")] == [other]
    assert count(store, StylePost) == 1  # the deleted style's examples went with it

    assert ok_json("style", "delete", other, "--yes") == {"deletedStyleId": other}
    assert count(store, ContentStyle) == 0
    assert count(store, StylePost) == 0


# --------------------------------------------------------------------------- add-posts


def test_add_posts_as_arguments_trains_the_style(store: Store) -> None:
    sid = create()["_id"]
    added = ok_json("style", "add-posts", sid, "  First example.  ", "Second example!")
    assert added["count"] == 2
    assert [set(p) for p in added["data"]] == [{"_id", "content"}] * 2
    assert [p["content"] for p in added["data"]] == ["First example.", "Second example!"]
    assert stored_profile(store, sid)["examples"] == 2

    human = ok("style", "add-posts", sid, "Third example.")
    assert f"Added 1 example post(s) to {sid}" in human.stdout
    shown = ok_json("style", "show", sid)
    assert [p["content"] for p in shown["posts"]] == [
        "First example.",
        "Second example!",
        "Third example.",
    ]
    assert shown["profile"]["examples"] == 3


def test_add_posts_from_a_file(store: Store, tmp_path: Path) -> None:
    sid = create()["_id"]
    path = tmp_path / "posts.txt"
    path.write_text(
        "\n---\n"  # a blank chunk before the first separator is ignored
        "First post.\n\nWith a second paragraph.\n"
        "---\n"
        "   \n"  # a blank chunk between separators is ignored
        "  ---  \n"
        "Second post 🚀\n"
        "--- not a separator, part of the post\n"
        "---\n"
        "\n",  # and a blank last chunk too
        encoding="utf-8",
    )
    added = ok_json("style", "add-posts", sid, "--file", str(path))
    assert [p["content"] for p in added["data"]] == [
        "First post.\n\nWith a second paragraph.",
        "Second post 🚀\n--- not a separator, part of the post",
    ]
    assert ok_json("style", "show", sid)["profile"]["examples"] == 2


def test_add_posts_from_a_local_feed_takes_the_five_newest(
    store: Store, feeds: FeedServer, allow_private: None
) -> None:
    url = feeds.serve("/feed.xml", rss_feed())
    sid = create()["_id"]
    added = ok_json("style", "add-posts", sid, "--from-profile", url)
    assert added["count"] == 5
    assert [p["content"] for p in added["data"]] == NEWEST_FIVE
    shown = ok_json("style", "show", sid)
    assert [p["content"] for p in shown["posts"]] == NEWEST_FIVE
    assert shown["profile"]["examples"] == 5

    small = create("Small")["_id"]
    few = feeds.serve("/few.xml", rss_feed([(3, "Third"), (4, "Fourth")]))
    human = ok("style", "add-posts", small, "--from-profile", few)
    assert f"Added 2 example post(s) to {small}" in human.stdout
    assert [p["content"] for p in ok_json("style", "show", small)["posts"]] == [
        "Fourth post about shipping.",
        "Third post about shipping.",
    ]


def test_add_posts_refusals(store: Store, tmp_path: Path) -> None:
    sid = create()["_id"]
    ok_json("style", "add-posts", sid, "Already there.")
    six = ["one", "two", "three", "four", "five", "six"]
    refuse(
        store,
        ["style", "add-posts", sid, *six],
        "At most 5 posts can be added per call (6 given)",
    )
    six_in_a_file = tmp_path / "six.txt"
    six_in_a_file.write_text("\n---\n".join(six), encoding="utf-8")
    refuse(
        store,
        ["style", "add-posts", sid, "--file", str(six_in_a_file)],
        "At most 5 posts can be added per call (6 given)",
    )
    refuse(store, ["style", "add-posts", sid, "fine", "   "], "Post 2 is empty")
    refuse(
        store,
        ["style", "add-posts", sid, "x" * 3001],
        "Post 1 exceeds the character limit of 3000 characters",
    )
    blank_file = tmp_path / "blank.txt"
    blank_file.write_text("\n---\n   \n---\n", encoding="utf-8")
    refuse(
        store,
        ["style", "add-posts", sid, "--file", str(blank_file)],
        "posts must be a non-empty array of strings",
    )
    assert [p["content"] for p in ok_json("style", "show", sid)["posts"]] == ["Already there."]


def test_add_posts_needs_exactly_one_source(store: Store, tmp_path: Path) -> None:
    sid = create()["_id"]
    path = tmp_path / "posts.txt"
    path.write_text("A post.", encoding="utf-8")
    url = "http://127.0.0.1:9/feed.xml"
    for args in (
        [],
        ["A post.", "--file", str(path)],
        ["--file", str(path), "--from-profile", url],
        ["A post.", "--from-profile", url],
        ["A post.", "--file", str(path), "--from-profile", url],
    ):
        refuse(store, ["style", "add-posts", sid, *args], SOURCES)
    assert count(store, StylePost) == 0


def test_add_posts_from_an_unreadable_file(store: Store, tmp_path: Path) -> None:
    sid = create()["_id"]
    missing = tmp_path / "missing.txt"
    refuse(store, ["style", "add-posts", sid, "--file", str(missing)], f"Cannot read {missing}")
    refuse(store, ["style", "add-posts", sid, "--file", str(tmp_path)], "not a regular file")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    refuse(store, ["style", "add-posts", sid, "--file", str(latin1)], f"Cannot read {latin1}")
    assert count(store, StylePost) == 0


def test_add_posts_from_a_profile_that_cannot_be_read(
    store: Store, feeds: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = create()["_id"]
    url = feeds.serve("/feed.xml", rss_feed())
    # Without the allowance, 127.0.0.1 is refused before anything is fetched.
    refuse(
        store, ["style", "add-posts", sid, "--from-profile", url], "127.0.0.1 is a loopback address"
    )
    assert feeds.seen == []

    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")
    refuse(
        store,
        ["style", "add-posts", sid, "--from-profile", feeds.url("/gone.xml")],
        "the server answered 404",
    )
    empty = feeds.serve("/empty.xml", rss_feed([]))
    refuse(
        store, ["style", "add-posts", sid, "--from-profile", empty], f"No posts found at {empty}"
    )
    refuse(
        store,
        ["style", "add-posts", sid, "--from-profile", "https://www.linkedin.com/in/dana/"],
        LINKEDIN_REFUSAL,
    )
    refuse(
        store,
        ["style", "add-posts", sid, "--from-profile", "not a url"],
        "must be a full link starting with https://",
    )
    assert count(store, StylePost) == 0


# ---------------------------------------------------------------- edit-post / delete-post


def test_edit_post_and_delete_post_retrain_the_style(store: Store) -> None:
    style = founder(store)
    sid = style["_id"]
    first, second, third = (p["_id"] for p in style["posts"])
    profile = style["profile"]

    edited = ok_json("style", "edit-post", sid, first, "--content", "  New words, no emoji.  ")
    assert edited == {"_id": first, "content": "New words, no emoji."}
    after_edit = ok_json("style", "show", sid)
    assert [p["content"] for p in after_edit["posts"]] == [
        "New words, no emoji.",
        *FOUNDER_POSTS[1:],
    ]
    assert after_edit["profile"]["examples"] == 3
    assert after_edit["profile"] != profile  # trained again on the new text
    expected = describe_profile(derive_profile(["New words, no emoji.", *FOUNDER_POSTS[1:]]))
    person = flat(ok("style", "show", sid).stdout)
    for line in expected:
        assert flat(line) in person

    human = ok("style", "edit-post", sid, second, "-c", "Second, rewritten.")
    assert f"Updated example {second}" in human.stdout

    assert ok_json("style", "delete-post", sid, first) == {"deletedPostId": first}
    assert ok_json("style", "show", sid)["profile"]["examples"] == 2
    assert f"Deleted example {second}" in ok("style", "delete-post", sid, second).stdout
    ok_json("style", "delete-post", sid, third)

    emptied = ok_json("style", "show", sid)
    assert (emptied["posts"], emptied["profile"]) == ([], None)
    person = ok("style", "show", sid).stdout
    assert "No example posts yet" in person and "Derived profile" not in person


def test_edit_post_and_delete_post_refusals(store: Store) -> None:
    style = founder(store)
    sid = style["_id"]
    post_id = style["posts"][0]["_id"]
    other = create("Other")["_id"]
    other_post = ok_json("style", "add-posts", other, "Other words.")["data"][0]["_id"]

    refuse(store, ["style", "edit-post", sid, "nope", "--content", "x"], POST_NOT_FOUND)
    refuse(store, ["style", "delete-post", sid, "nope"], POST_NOT_FOUND)
    # A post of another style is not found under this one.
    refuse(store, ["style", "edit-post", sid, other_post, "--content", "x"], POST_NOT_FOUND)
    refuse(store, ["style", "delete-post", sid, other_post], POST_NOT_FOUND)
    refuse(store, ["style", "edit-post", sid, post_id, "--content", "  "], "Content is required")
    refuse(
        store,
        ["style", "edit-post", sid, post_id, "--content", "x" * 3001],
        "exceeds the character limit of 3000 characters",
    )
    assert ok_json("style", "show", sid)["posts"] == style["posts"]


# --------------------------------------------------------------------------- not found


def test_unknown_style_is_not_found_for_every_command(store: Store, tmp_path: Path) -> None:
    founder(store)
    path = tmp_path / "posts.txt"
    path.write_text("A post.", encoding="utf-8")
    for args in (
        ["show", "nope"],
        ["edit", "nope", "--name", "x"],
        ["delete", "nope", "--yes"],
        ["delete", "nope"],
        ["add-posts", "nope", "A post."],
        ["add-posts", "nope", "--file", str(path)],
        ["edit-post", "nope", "p", "--content", "x"],
        ["delete-post", "nope", "p"],
    ):
        refuse(store, ["style", *args], NOT_FOUND, input="y\n")


def test_a_style_of_another_workspace_is_not_found(store: Store) -> None:
    style = founder(store)
    sid, post_id = style["_id"], style["posts"][0]["_id"]
    other = store.workspace("Elsewhere")

    assert ok_json("style", "list", "-w", other) == []
    for workspace in (other, "Elsewhere"):  # by id and by name
        for args in (
            ["show", sid],
            ["edit", sid, "--name", "stolen"],
            ["edit", sid, "--description", ""],
            ["delete", sid, "--yes"],
            ["delete", sid],
            ["add-posts", sid, "A post."],
            ["edit-post", sid, post_id, "--content", "stolen"],
            ["delete-post", sid, post_id],
        ):
            refuse(store, ["style", *args, "-w", workspace], NOT_FOUND, input="y\n")

    # And the other way round: a style made in the other workspace stays there.
    theirs = create("Theirs", "-w", other)
    assert theirs["workspaceId"] == other
    assert [s["_id"] for s in ok_json("style", "list", "-w", other)] == [theirs["_id"]]
    assert [s["_id"] for s in ok_json("style", "list")] == [sid]
    refuse(store, ["style", "show", theirs["_id"]], NOT_FOUND)
    assert ok_json("style", "show", sid) == style


# --------------------------------------------------------------------------- import


def test_import_prints_the_posts_of_a_profile(
    store: Store, feeds: FeedServer, allow_private: None
) -> None:
    url = feeds.serve("/feed.xml", rss_feed())
    before = snapshot(store)
    posts = ok_json("style", "import", url)
    assert posts == [
        {"content": f"{word} post about shipping.", "date": f"2024-04-{day:02d}"}
        for day, word in sorted(FEED_ITEMS, reverse=True)
    ]

    person = ok("style", "import", url).stdout
    assert "7 post(s) found." in person
    for post in posts:
        assert post["content"] in person and post["date"] in person
    assert snapshot(store) == before  # importing only prints


def test_import_refusals(store: Store, feeds: FeedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse(
        store, ["style", "import", "https://www.linkedin.com/in/dana-whitfield/"], LINKEDIN_REFUSAL
    )
    refuse(store, ["style", "import", "https://www.linkedin.com/feed/"], "not a LinkedIn profile")
    refuse(
        store,
        ["style", "import", "ftp://example.com/feed.xml"],
        "must start with http:// or https://",
    )
    refuse(
        store,
        ["style", "import", "https://unknown.example/feed.xml"],
        "Could not resolve unknown.example",
    )
    url = feeds.serve("/feed.xml", rss_feed())
    refuse(store, ["style", "import", url], "127.0.0.1 is a loopback address")
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")
    refuse(store, ["style", "import", feeds.url("/gone.xml")], "the server answered 404")
    empty = feeds.serve("/empty.xml", rss_feed([]))
    refuse(store, ["style", "import", empty], f"No posts found at {empty}")


# --------------------------------------------------------------------------- post --style


def test_post_with_a_style_sends_its_examples_to_the_model(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    style = founder(store)
    result = run("post", "weekly releases", "--style", style["_id"], "--json", ai=scripted_ai)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["event"] == "post_ids"

    system = scripted_ai.calls_for("post")[-1].messages[0]["content"]
    assert 'Write in the style "Founder"' in system
    assert "Punchy founder voice" in system
    for post in FOUNDER_POSTS:
        assert post in system  # three examples: all of them are the few-shot context
    for line in describe_profile(derive_profile(FOUNDER_POSTS)):
        assert f"- {line}" in system

    unstyled = run("post", "weekly releases", "--json", ai=scripted_ai)
    assert unstyled.exit_code == 0, unstyled.output
    assert "Write in the style" not in scripted_ai.calls_for("post")[-1].messages[0]["content"]


def test_post_with_an_unknown_style_is_refused(store: Store, scripted_ai: ScriptedAI) -> None:
    style = founder(store)
    other = store.workspace("Elsewhere")
    refuse(store, ["post", "weekly releases", "--style", "nope"], NOT_FOUND, ai=scripted_ai)
    refuse(
        store,
        ["post", "weekly releases", "--style", style["_id"], "-w", other],
        NOT_FOUND,
        ai=scripted_ai,
    )
    assert scripted_ai.calls == []


# --------------------------------------------------------------------------- known bugs


def test_show_prints_every_example_post_id_in_full(store: Store) -> None:
    sid = create()["_id"]
    added = ok_json("style", "add-posts", sid, "Hi.", "A short one.")
    person = ok("style", "show", sid).stdout
    for post in added["data"]:
        assert post["_id"] in person, person


def test_human_output_prints_square_brackets_verbatim(store: Store) -> None:
    created = ok("style", "create", "Launch [beta]", "--description", "[internal] voice")
    assert "Created style 'Launch [beta]'" in created.stdout, created.stdout
    sid = ok_json("style", "list")[0]["_id"]
    ok_json("style", "add-posts", sid, "Checklist:\n[x] ship\n[ ] test")
    listed = ok("style", "list").stdout
    assert "Launch [beta]" in listed and "[internal] voice" in listed, listed
    shown = ok("style", "show", sid).stdout
    for text in ("Launch [beta]", "[internal] voice", "[x] ship"):
        assert text in shown, (text, shown)


def test_text_like_a_closing_markup_tag_does_not_crash(store: Store) -> None:
    created = run("style", "create", "Founder [/b]")
    assert created.exception is None, repr(created.exception)
    assert created.exit_code == 0 and "Founder [/b]" in created.stdout
    sid = ok_json("style", "list")[0]["_id"]
    ok_json("style", "add-posts", sid, "Close it [/bold] now.")
    shown = run("style", "show", sid)
    assert shown.exception is None, repr(shown.exception)
    assert "Close it [/bold] now." in shown.stdout


def test_unreadable_file_with_brackets_in_its_name_is_reported(
    store: Store, tmp_path: Path
) -> None:
    sid = create()["_id"]
    refuse(
        store,
        ["style", "add-posts", sid, "--file", str(tmp_path / "notes [/b].txt")],
        "Cannot read",
    )


def test_import_prints_posts_verbatim(store: Store, feeds: FeedServer, allow_private: None) -> None:
    url = feeds.serve("/feed.xml", rss_feed([(3, "[x] Release")]))
    assert ok_json("style", "import", url)[0]["content"] == "[x] Release post about shipping."
    person = ok("style", "import", url).stdout
    assert "[x] Release post about shipping." in person, person
