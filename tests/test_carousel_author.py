"""The author's name on carousel slides: asked once (`config set name`), `--name`
wins, and never the machine's login name (which first run gives the local owner)."""

from __future__ import annotations

import getpass
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.carousel_support import counts
from tests.conftest import Store
from tests.scripted_support import ScriptedAI

LOGIN = getpass.getuser()


def create(ai: ScriptedAI, *args: str) -> str:
    """Makes a two-slide carousel; the words of its PDF."""
    result = ai.invoke(
        ["carousel", "create", "why small teams ship weekly", "--slides", "2", *args]
    )
    assert result.exit_code == 0, result.output
    pdf_line = next(line for line in result.stdout.splitlines() if line.startswith("PDF:"))
    document = pdfium.PdfDocument(Path(pdf_line.split(None, 1)[1]))
    try:
        return " ".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def test_the_name_setting_is_on_every_slide(store: Store, scripted_ai: ScriptedAI) -> None:
    assert scripted_ai.invoke(["config", "set", "name", "Ada Lovelace"]).exit_code == 0
    text = create(scripted_ai)
    assert text.count("Ada Lovelace") == 2
    assert LOGIN not in text.split()


def test_the_name_option_wins_over_the_setting(store: Store, scripted_ai: ScriptedAI) -> None:
    assert scripted_ai.invoke(["config", "set", "name", "Ada Lovelace"]).exit_code == 0
    text = create(scripted_ai, "--name", "  Grace   Hopper ")
    assert text.count("Grace Hopper") == 2
    assert "Ada Lovelace" not in text


@pytest.mark.parametrize(("args", "shown"), [([], None), (["--handle", "@ada"], "@ada")])
def test_without_a_name_never_the_login_name(
    store: Store, scripted_ai: ScriptedAI, args: list[str], shown: str | None
) -> None:
    words = create(scripted_ai, *args).split()
    assert LOGIN not in words, f"the login name {LOGIN!r} is on the slides"
    if shown:
        assert words.count(shown) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "A" * 81], "--name is longer than 80 characters"),
        # Refused with every command line's text (kit/text_check.py), before the
        # carousel's own check.
        (["--name", "Ada\x07"], "--name contains a control character (U+0007) at character 4"),
    ],
)
def test_a_bad_name_is_refused_before_any_work(
    store: Store, scripted_ai: ScriptedAI, args: list[str], message: str
) -> None:
    before = counts(store)
    result = scripted_ai.invoke(["carousel", "create", "x", *args])
    assert result.exit_code != 0
    assert message in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert counts(store) == before
    assert scripted_ai.calls == []
