"""Every command takes --json, as README promises (`serve` aside: it prints nothing to
parse), and with it prints JSON: one document, or one JSON object per line for streams.

The command tree is walked, not listed: a command added later without --json, or
without an entry in SAMPLES (the minimal valid arguments to run it with), fails here.
Each command runs through the real CLI app on a temporary SOCIALGEN_HOME (the `store`
fixture) with the in-process scripted text model and the offline procedural images.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.auth.service import create_api_key, create_token
from socialgen.cli.main import app
from socialgen.publishing.accounts.service import add_account
from socialgen.publishing.registry import Networks
from socialgen.sources import guard
from socialgen.store.engine import transaction
from socialgen.store.tables import PostStatus
from socialgen.styles import service as styles
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from socialgen.workspaces.service import add_member, create_user
from tests.conftest import Store, days_ahead
from tests.doubles.scripted_model import ScriptedModel
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now
from tests.queue_support import queue_ready, queued_post

NETWORKS = (
    "bluesky",
    "mastodon",
    "linkedin",
    "x",
    "threads",
    "telegram",
    "discord",
    "nostr",
    "pixelfed",
)

runner = CliRunner()
_COMMAND = get_command(app)

# Commands that need no --json, and why.
WITHOUT_JSON = {
    "serve": "runs the HTTP server until stopped; it prints no result",
    "mcp": "serves MCP over stdio until its client leaves: stdout is the protocol, JSON-RPC",
}


def command_paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """Every leaf command under `command` as ("group sub", command), depth first;
    groups loaded on use are loaded here (click's list_commands/get_command)."""
    if not hasattr(command, "list_commands"):
        yield " ".join(path), command
        return
    for name in sorted(command.list_commands(None)):
        yield from command_paths(command.get_command(None, name), (*path, name))


COMMANDS = dict(command_paths(_COMMAND))

# --------------------------------------------------------------------------- a sandbox

FEED = (
    b'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Dana</title>'
    b"<link>https://dana.example/</link><item><title>One</title>"
    b"<link>https://dana.example/1</link><pubDate>Mon, 01 Apr 2024 09:00:00 GMT</pubDate>"
    b"<description>A post about shipping weekly.</description></item></channel></rss>"
)


class _FeedHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(FEED)))
        self.end_headers()
        self.wfile.write(FEED)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def feed_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A profile feed on 127.0.0.1 (`style import`), reached with private URLs allowed."""
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _FeedHandler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@dataclass
class Sandbox:
    """What a command's sample arguments may need made first."""

    store: Store
    tmp: Path
    feed_url: str

    def files_folder(self) -> Path:
        """A local files folder with one stored file, to copy into the bucket."""
        folder = self.tmp / "old-files"
        (folder / "w1" / "carousels" / "c1").mkdir(parents=True)
        (folder / "w1" / "carousels" / "c1" / "thumbnail-0123456789.png").write_bytes(b"png")
        return folder

    def post(self, status: str = PostStatus.DRAFT) -> str:
        when = days_ahead(3) if status == PostStatus.SCHEDULED else None
        return self.store.post("A post about shipping weekly", status=status, when=when).id

    def style(self) -> str:
        with transaction(self.store.engine) as session:
            return styles.create_style(session, self.store.workspace_id, "Crisp", None).id

    def style_post(self) -> list[str]:
        style_id = self.style()
        with transaction(self.store.engine) as session:
            added = styles.add_posts(
                session, self.store.workspace_id, style_id, ["Ship small. Ship often."]
            )
            return [style_id, added[0].id]

    def carousel(self) -> str:
        result = invoke(["carousel", "create", "shipping weekly", "--slides", "2", "--json"])
        assert result.exit_code == 0, result.output
        return str(json_values(result.stdout)[-1]["data"]["data"]["carouselId"])

    def member(self) -> list[str]:
        with transaction(self.store.engine) as session:
            create_user(session, "ada@example.com")
            add_member(session, self.store.workspace_id, "ada@example.com", "member")
        return [self.store.workspace_id, "ada@example.com"]

    def key_id(self) -> str:
        with transaction(self.store.engine) as session:
            return create_api_key(session, name="t", workspace_id=self.store.workspace_id)[0].id

    def token_id(self) -> str:
        with transaction(self.store.engine) as session:
            return create_token(session, LOCAL_OWNER_EMAIL, days=1)[0].id

    def account(self) -> str:
        """A Bluesky account on the scripted network (registered by `_offline_cli`)."""
        connected = ScriptedNetwork("bluesky").connect("http://127.0.0.1:9", "alice.test", "pw")
        with transaction(self.store.engine) as session:
            added = add_account(
                session,
                self.store.workspace_id,
                "bluesky",
                connected,
                networks=Networks(keys=keys_now()),
            )
            return added.id

    def pulled_model(self) -> str:
        """A model already in the models folder: `models pull` finds it, asks no hub."""
        folder = self.store.home / "models"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tiny.gguf").write_bytes(b"GGUF")
        return "someone/tiny-GGUF/tiny.gguf"

    def provider_key(self) -> str:
        from socialgen.config.provider_keys import store_key

        store_key("openai", "sk-sample-key")
        return "openai"

    def file(self, name: str, text: str) -> str:
        path = self.tmp / name
        path.write_text(text, encoding="utf-8")
        return str(path)


# Minimal valid arguments of each command (before --json), by command path.
# Commands that only run with a bucket configured.
NEEDS_A_BUCKET = frozenset({"files migrate"})

SAMPLES: dict[str, Callable[[Sandbox], list[str]]] = {
    "chat": lambda s: ["how do I write a good hook?"],
    "files migrate": lambda s: ["--from", str(s.files_folder())],
    "post": lambda s: ["why small teams ship weekly"],
    "batch": lambda s: ["why small teams ship weekly"],
    "calendar": lambda s: ["7", "--prompt", "shipping weekly"],
    "conversations": lambda s: [],
    "posts export": lambda s: [],
    "posts import": lambda s: [s.file("posts.json", '[{"content": "An imported post"}]')],
    "posts recent": lambda s: [],
    "posts timeline": lambda s: [],
    "posts list": lambda s: ["--status", "draft", "--since", "2020-01-01"],
    "posts search": lambda s: ["shipping"],
    "posts show": lambda s: [s.post()],
    "posts edit": lambda s: [s.post(), "--content", "A better post"],
    "posts delete": lambda s: [s.post(), "--yes"],
    "posts schedule": lambda s: [s.post(), "--at", days_ahead(7).isoformat()],
    "posts unschedule": lambda s: [s.post(PostStatus.SCHEDULED)],
    "posts mark-published": lambda s: [s.post(PostStatus.SCHEDULED)],
    "style create": lambda s: ["Crisp"],
    "style list": lambda s: [],
    "style show": lambda s: [s.style()],
    "style edit": lambda s: [s.style(), "--name", "Crisper"],
    "style delete": lambda s: [s.style(), "--yes"],
    "style add-posts": lambda s: [s.style(), "Ship small. Ship often."],
    "style edit-post": lambda s: [*s.style_post(), "--content", "Ship smaller."],
    "style delete-post": lambda s: s.style_post(),
    "style import": lambda s: [s.feed_url],
    "carousel create": lambda s: ["shipping weekly", "--slides", "2"],
    "carousel regenerate-slide": lambda s: [s.carousel(), "0", "a lighthouse"],
    "carousel pdf": lambda s: [s.file("slide.html", "<h1>Hi</h1>"), "-o", str(s.tmp / "o.pdf")],
    "carousel templates": lambda s: [],
    "carousel list": lambda s: [],
    "carousel show": lambda s: [s.carousel()],
    "workspace create": lambda s: ["Agency"],
    "workspace list": lambda s: [],
    "workspace quota": lambda s: [s.store.workspace_id, "50"],
    "user create": lambda s: ["ada@example.com"],
    "user list": lambda s: [],
    "member add": lambda s: [s.store.workspace_id, LOCAL_OWNER_EMAIL, "--role", "owner"],
    "member remove": lambda s: s.member(),
    "member list": lambda s: [s.store.workspace_id],
    "key create": lambda s: [],
    "key list": lambda s: [],
    "key revoke": lambda s: [s.key_id()],
    "token create": lambda s: [LOCAL_OWNER_EMAIL],
    "token list": lambda s: [],
    "token revoke": lambda s: [s.token_id()],
    "accounts add bluesky": lambda s: ["alice.test"],
    "accounts add mastodon": lambda s: ["--instance", "http://127.0.0.1:9", "--no-browser"],
    "accounts add linkedin": lambda s: ["--client-id", "app", "--no-browser"],
    "accounts add x": lambda s: ["--token-stdin"],
    "accounts add threads": lambda s: ["--token-stdin"],
    "accounts add telegram": lambda s: ["--token-stdin", "@shipweekly"],
    "accounts add discord": lambda s: ["--webhook-stdin", "--channel", "general"],
    "accounts add nostr": lambda s: ["--nsec-stdin"],
    "accounts add pixelfed": lambda s: ["--instance", "http://127.0.0.1:9", "--token-stdin"],
    "accounts list": lambda s: [],
    "accounts check": lambda s: [s.account()],
    "accounts history": lambda s: [s.account(), "--since", "2025-01-01"],
    "accounts remove": lambda s: [s.account(), "--yes"],
    "posts publish": lambda s: [s.post(), "--to", s.account()],
    "posts publications": lambda s: [s.post()],
    "posts stats": lambda s: [],
    "posts preview": lambda s: [s.post(), "--to", s.account(), "--to", "linkedin"],
    "posts first-comment": lambda s: [s.post(), "Sources: https://example.com", "--delay", "5m"],
    "posts plug": lambda s: [s.post(), "My newsletter", "--after-likes", "10"],
    "posts queue": lambda s: [*queue_ready(invoke), s.post()],
    "queue slots set": lambda s: ["Tue 08:30, Thu 08:30"],
    "queue slots suggest": lambda s: [],
    "queue slots clear": lambda s: queue_ready(invoke),
    "queue remove": lambda s: [queued_post(invoke, s.post())],
    "queue move": lambda s: [queued_post(invoke, s.post()), "--at", "2199-01-07T08:30:00Z"],
    "insights rank": lambda s: [s.post()],
    "posts evergreen": lambda s: [],  # the plans (setting one needs a published post)
    "insights evergreen": lambda s: [],
    "publish-due": lambda s: [],
    "models list": lambda s: [],
    "models pull": lambda s: [s.pulled_model()],
    "models default": lambda s: ["openai/gpt-4o-mini"],
    "config path": lambda s: [],
    "config list": lambda s: [],
    "config get": lambda s: ["model"],
    "config set": lambda s: ["publish_grace", "2h"],
    "config unset": lambda s: ["publish_grace"],
    "provider-key set": lambda s: ["openai", "--stdin"],
    "provider-key list": lambda s: [],
    "provider-key remove": lambda s: [s.provider_key()],
}
# What a command reads on stdin (a secret it must not take as an argument).
STDIN = {
    "provider-key set": "sk-sample-key\n",
    "accounts add x": "x-user-token-1234\n",
    "accounts add threads": "threads-token-1234\n",
    "accounts add telegram": "123456789:AAEabcdefghijklmnopqrstuvwxyz0123456\n",
    "accounts add discord": "http://127.0.0.1:9/api/webhooks/123/abcdef\n",
    "accounts add nostr": "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5\n",
    "accounts add pixelfed": "pixelfed-token-1234\n",
}


# What the commands run with: the scripted text model, handed in as the CLI's Runtime.
RUNTIME: Runtime | None = None


def invoke(args: list[str], input: str | None = None) -> Result:
    return runner.invoke(app, args, input=input, obj=RUNTIME)


def json_values(stdout: str) -> list[Any]:
    """stdout as one JSON document, or as JSON lines (each one an object); a list of
    the values either way. Anything else fails the test."""
    assert stdout.strip(), "nothing on stdout"
    try:
        return [json.loads(stdout)]
    except json.JSONDecodeError:
        pass
    values = []
    for line in stdout.splitlines():
        if line.strip():
            value = json.loads(line)  # raises, naming the line, if it is not JSON
            assert isinstance(value, dict), f"a JSON line that is not an object: {line!r}"
            values.append(value)
    return values


@pytest.fixture(autouse=True)
def _offline_cli(monkeypatch: pytest.MonkeyPatch, scripted_model: ScriptedModel) -> Iterator[None]:
    """The CLI built once; its text model the scripted one (images stay procedural)."""
    # Publishing reaches no real network here: every network is a scripted one.
    networks = {name: ScriptedNetwork(name) for name in NETWORKS}
    monkeypatch.setattr(
        f"{__name__}.RUNTIME", Runtime(text_model=scripted_model, networks=networks)
    )
    monkeypatch.delenv("SOCIALGEN_IMAGE_MODEL", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")
    monkeypatch.setenv("SOCIALGEN_BLUESKY_APP_PASSWORD", "pw-1234")
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_CLIENT_SECRET", "cs-1234")
    yield


# --------------------------------------------------------------------------- the tests


def commands_in_help(path: tuple[str, ...] = ()) -> Iterator[str]:
    """Every leaf command as `socialgen ... --help` lists it to a user: the "Commands:"
    section of each group's help, entered until a command has none."""
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    _, found, listed = result.output.partition("\nCommands:\n")
    if not found:
        yield " ".join(path)
        return
    for line in listed.splitlines():
        # A command's line starts 2 spaces in; a long description wraps onto lines
        # indented under itself (cli/suggest.py's `summary`), which name no command.
        if line.startswith("  ") and line[2:3].strip():
            yield from commands_in_help((*path, line.split()[0]))


def test_the_walk_finds_every_command_the_help_lists() -> None:
    """The walk above decides what the other tests check: it must find the commands a
    user sees in --help (not just some of them), and no group as a command."""
    listed = set(commands_in_help())
    assert {"chat", "posts show", "carousel pdf", "token revoke", "serve"} <= listed
    assert set(COMMANDS) == listed, set(COMMANDS) ^ listed


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_takes_json(path: str) -> None:
    if path in WITHOUT_JSON:
        return
    options = [opt for param in COMMANDS[path].params for opt in param.opts]
    assert "--json" in options, f"`socialgen {path}` has no --json option"


def test_every_command_has_sample_arguments() -> None:
    missing = set(COMMANDS) - set(SAMPLES) - set(WITHOUT_JSON)
    assert not missing, f"add sample arguments to SAMPLES for: {sorted(missing)}"
    stale = set(SAMPLES) - set(COMMANDS)
    assert not stale, f"SAMPLES names commands that no longer exist: {sorted(stale)}"


@pytest.mark.parametrize("path", sorted(set(COMMANDS) - set(WITHOUT_JSON)))
def test_every_command_prints_json(
    path: str, store: Store, tmp_path: Path, feed_url: str, request: pytest.FixtureRequest
) -> None:
    if path not in SAMPLES:
        pytest.fail(f"no sample arguments for `socialgen {path}`: add it to SAMPLES")
    if path in NEEDS_A_BUCKET:
        request.getfixturevalue("bucket")  # a moto S3 server, SOCIALGEN_FILES_URL set
    args = [*path.split(), *SAMPLES[path](Sandbox(store, tmp_path, feed_url)), "--json"]

    result = invoke(args, STDIN.get(path))

    assert result.exit_code == 0, f"{args}: {result.output}"
    assert "Traceback" not in result.output
    values = json_values(result.stdout)
    assert values, args
