"""The CLI's words in everyday use: option names where a shared service names an API
field, a time without a zone read in the person's zone (and said), streamed text
wrapped between words at a narrow terminal, and empty listings that name the
command that fills them. Driven through the real CLI app on a real store."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.cli.words import cli_message
from socialgen.cli.wrap import WordWrap
from socialgen.kit.clock import iso
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from tests.conftest import Store
from tests.scripted_support import ScriptedAI
from tests.terminal_support import A_TERMINAL

runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    result = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in result.output
    return result


# --------------------------------------------------------------------------- option names


def test_calendar_says_its_own_argument_not_the_api_field(store: Store) -> None:
    wrong = run("calendar", "5", "--prompt", "Shipping weekly")
    no_source = run("calendar", "7")
    as_json = run("calendar", "5", "--prompt", "Shipping weekly", "--json")

    assert wrong.exit_code == 1
    assert "DAYS must be 7 or 30" in wrong.stderr
    assert no_source.exit_code == 1
    assert "Give at least one source: --prompt, --video, --article or --pdf" in no_source.stderr
    assert json.loads(as_json.stdout)["message"] == "DAYS must be 7 or 30"
    for result in (wrong, no_source, as_json):
        assert not re.search(r"\b(calendarLength|youtubeUrl|articleUrls)\b", result.output)


def test_every_field_name_a_service_says_has_cli_words() -> None:
    """The messages the services raise (and reach the CLI) come out without a camelCase
    field; an import file's own column names stay, they are the file's words."""
    service_messages = [
        "calendarLength must be 7 or 30",
        "userInput is longer than 20000 characters",
        "postIds must list at least one post id",
        "slideCount must be between 3 and 10",
        "slideIndex must be 0 or more (0 is the first slide)",
        "socialMediaHandle must be a handle such as @ada_lovelace",
        "cursor is not valid: pass the nextCursor of the previous page",
    ]
    for message in service_messages:
        assert not re.search(r"\b[a-z]+[A-Z]\w*\b", cli_message(message)), cli_message(message)
    assert cli_message("userInput is required", "chat") == "MESSAGE is required"
    assert cli_message("userInput is required", "post") == "TOPIC is required"
    kept = "row 3: publishedAt is in the future (2027-01-01T00:00:00.000Z)"
    assert cli_message(kept) == kept


# --------------------------------------------------------------------------- --at


def test_a_time_without_a_zone_is_read_in_the_local_zone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = (datetime.now(UTC) + timedelta(days=10)).date()
    at = f"{day.isoformat()}T09:00"
    post = store.post("Planned for nine")

    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "Asia/Tokyo")
    by_setting = run("posts", "schedule", post.id, "--at", at, "--json")
    human = run("posts", "schedule", post.id, "--at", at)
    monkeypatch.delenv("SOCIALGEN_TIMEZONE")
    monkeypatch.setenv("TZ", "America/New_York")
    by_system = run("posts", "schedule", post.id, "--at", at, "--json")
    explicit = run("posts", "schedule", post.id, "--at", f"{at}Z", "--json")

    tokyo = datetime(day.year, day.month, day.day, 9, tzinfo=ZoneInfo("Asia/Tokyo"))
    new_york = datetime(day.year, day.month, day.day, 9, tzinfo=ZoneInfo("America/New_York"))
    assert by_setting.exit_code == 0, by_setting.output
    data = json.loads(by_setting.stdout)
    assert (data["scheduledAt"], data["timezone"]) == (iso(tokyo), "Asia/Tokyo")
    assert f"for {day.isoformat()} 09:00 Asia/Tokyo ({iso(tokyo)})" in human.stdout
    assert json.loads(by_system.stdout)["scheduledAt"] == iso(new_york)
    assert json.loads(by_system.stdout)["timezone"] == "America/New_York"
    moment = datetime(day.year, day.month, day.day, 9, tzinfo=UTC)
    assert json.loads(explicit.stdout)["scheduledAt"] == iso(moment)
    assert "timezone" not in json.loads(explicit.stdout)  # an offset says it all
    with read_session(store.engine) as session:
        saved = session.get(Post, post.id)
        assert saved is not None and iso(saved.scheduled_at) == iso(moment)


# --------------------------------------------------------------------------- wrapping


def test_word_wrap_never_splits_a_word_arriving_in_pieces() -> None:
    text = "It speaks to the importance of shipping small batches every week, always."
    written: list[str] = []
    wrap = WordWrap(written.append, 20)
    for start in range(0, len(text), 3):  # pieces cut mid-word, as a model streams
        wrap.feed(text[start : start + 3])
    wrap.end()

    lines = "".join(written).split("\n")
    assert all(len(line) <= 20 for line in lines), lines
    assert " ".join(lines).split() == text.split()
    assert lines[0] == "It speaks to the"


def test_streamed_text_wraps_between_words_at_a_narrow_terminal(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_text = (
        "Small teams ship weekly because nobody waits for permission, and the "
        "importance of that habit grows with every release they make together."
    )
    scripted_ai.post_reply = lambda _call: long_text
    for name, value in {**A_TERMINAL, "COLUMNS": "40"}.items():
        monkeypatch.setenv(name, value)

    result = scripted_ai.invoke(["post", "Why small teams ship weekly"])

    assert result.exit_code == 0, result.output
    streamed = result.stdout.strip().split("\n")
    assert all(len(line) <= 40 for line in streamed), streamed
    assert len(streamed) > 1
    assert " ".join(streamed).split() == long_text.split()  # no word cut in two


def test_piped_text_is_written_as_the_model_wrote_it(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_text = "One line that is much longer than forty columns, kept whole for a program."
    scripted_ai.post_reply = lambda _call: long_text
    monkeypatch.setenv("COLUMNS", "40")

    result = scripted_ai.invoke(["post", "Anything"])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == long_text


# --------------------------------------------------------------------------- empty listings


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (("posts", "recent"), 'Write one: socialgen post "TOPIC"'),
        (("posts", "timeline"), "Schedule a draft: socialgen posts schedule ID --at"),
        (("conversations",), 'Start one: socialgen chat "MESSAGE"'),
        (("style", "list"), "Make one: socialgen style create NAME"),
        (("accounts", "list"), "Connect one: socialgen accounts add bluesky HANDLE"),
        (("carousel", "list"), 'Make one: socialgen carousel create "TOPIC"'),
    ],
)
def test_an_empty_listing_names_the_command_that_fills_it(
    store: Store, args: tuple[str, ...], hint: str
) -> None:
    piped = run(*args)
    at_terminal = run(*args, env={**A_TERMINAL, "COLUMNS": "100"})

    assert piped.exit_code == 0 and at_terminal.exit_code == 0, piped.output
    assert piped.stdout == ""  # piped: no rows, and the note is not one
    assert hint in piped.stderr
    assert hint in at_terminal.stdout
