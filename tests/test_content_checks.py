"""A post's content is checked by one rule (posts/rules.py) whichever way it comes
in, and the same on SQLite and PostgreSQL: an import file (whose text never passes
the request checks), `posts edit`, and PUT post. A NUL is refused before the store
sees it (SQLite kept it and publishing sent it; PostgreSQL failed with "Unexpected
error"), and content that would look empty is refused as whitespace-only is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.text_check import shows_nothing
from socialgen.posts.rules import CONTENT_REQUIRED, valid_content
from socialgen.store.tables import Post
from tests.conftest import Store

runner = CliRunner()
NUL_MESSAGE = "Content contains a NUL character (\\u0000)"
# Each looks empty: zero-width space, joiner and non-joiner, byte order mark, word
# joiner, soft hyphen, direction marks, a Hangul filler, the blank Braille pattern,
# a variation selector, and these mixed with whitespace.
INVISIBLE = [
    "\u200b\u200b\u200b",
    "\u200d",
    "\ufeff",
    "\u2060\u00ad\u200e\u200f",
    "\u3164",
    "\u2800",
    "\ufe0f",
    " \u200b\n\t\u200c ",
]


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def refused(result: Result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "Unexpected error" not in result.output
    for word in words:
        assert word in result.output, (word, result.output)


def post_count(store: Store) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(Post)))


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text", INVISIBLE)
def test_content_that_shows_nothing_is_missing_content(text: str) -> None:
    assert shows_nothing(text)
    with pytest.raises(Exception, match=CONTENT_REQUIRED):
        valid_content(text)


@pytest.mark.parametrize("text", ["a\u200b", "\u200bé", "👍", "\u200d👩\u200d💻", "ㅤa"])
def test_visible_text_among_invisible_characters_is_content(text: str) -> None:
    assert not shows_nothing(text)
    assert valid_content(f"  {text}  ") == text


def test_an_import_with_a_nul_or_only_invisible_content_imports_nothing(
    store: Store, tmp_path: Path
) -> None:
    before = post_count(store)
    csv_nul = write(tmp_path, "nul.csv", 'content\n"Fine"\n"Hello\x00world"\n')
    refused(run("posts", "import", csv_nul), "row 3", NUL_MESSAGE, "Nothing imported")
    json_nul = write(tmp_path, "nul.json", json.dumps([{"content": "Fine"}, {"content": "a\0"}]))
    refused(run("posts", "import", json_nul), "item 2", NUL_MESSAGE)
    for number, text in enumerate(INVISIBLE):
        items = [{"content": "Fine"}, {"content": text}]
        invisible = write(tmp_path, f"invisible{number}.json", json.dumps(items))
        refused(run("posts", "import", invisible), "item 2", CONTENT_REQUIRED)
    zwsp_csv = write(tmp_path, "zwsp.csv", "content\nFine\n\u200b\u200b\n")
    refused(run("posts", "import", zwsp_csv), "row 3", CONTENT_REQUIRED)
    assert post_count(store) == before  # nothing half-written


def test_editing_to_invisible_content_is_refused_by_the_cli_and_the_api(
    store: Store, client: TestClient
) -> None:
    post = store.post("Words that stay")
    owner = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    url = f"/api/v1/ai-conversation/post/{store.workspace_id}/{post.id}"
    for text in INVISIBLE:
        refused(run("posts", "edit", post.id, "--content", text), CONTENT_REQUIRED)
        answer = client.put(url, headers=owner, json={"content": text})
        assert answer.status_code == 400, answer.text
        assert answer.json() == {"success": False, "message": CONTENT_REQUIRED}
    answer = client.put(url, headers=owner, json={"content": "bad\u0000"})
    assert answer.status_code == 400 and "NUL" in answer.json()["message"]
    assert store.scalar(sa.select(Post.content).where(Post.id == post.id)) == "Words that stay"
