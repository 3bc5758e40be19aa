"""Files a probe built to break `posts import`: each gets a clear error naming where it
is (a row, a line and column), never "Unexpected error", and nothing is imported."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from tests.conftest import Store
from tests.test_history_import_x_analytics import CONTENT_HEADER, KNOWN_ID, content_row
from tests.test_post_exports import csv_text, write

runner = CliRunner()


def refused(store: Store, path: str) -> str:
    result = runner.invoke(app, ["posts", "import", path])
    said = " ".join(result.output.split())
    assert result.exit_code != 0, said
    assert "Traceback" not in said and "Unexpected error" not in said, said
    with read_session(store.engine) as session:
        assert session.exec(select(Post)).first() is None  # nothing imported
    return said


@pytest.mark.parametrize("digits", [25, 5000])
def test_an_x_id_too_long_to_be_one_names_its_row(
    store: Store, tmp_path: Path, digits: int
) -> None:
    rows = [
        content_row(KNOWN_ID, "Fine", "1", "1", "0", "0"),
        content_row("9" * digits, "Too long an id", "1", "1", "0", "0"),
    ]
    path = write(tmp_path, "account_analytics_content.csv", csv_text(CONTENT_HEADER, *rows))
    said = refused(store, path)
    assert "row 3" in said and "is not an X post id" in said


def test_json_nested_thousands_deep_is_refused_in_words(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "posts.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    said = refused(store, str(path))
    assert "too deep" in said


def test_an_x_archive_nested_thousands_deep_is_refused_at_its_place(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "tweets.js"
    path.write_text("window.YTD.tweets.part0 = [" + "[" * 100_000 + "]" * 100_000 + "]")
    said = refused(store, str(path))
    assert "Not valid JSON in the X archive (line 1" in said and "too deep" in said


def test_a_csv_of_a_million_columns_is_refused_before_any_row(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("content," + ",".join(f"c{n}" for n in range(1_000_000)) + "\nhello\n")
    said = refused(store, str(path))
    assert "1,000,001 columns" in said and "at most 200" in said


def test_a_row_wider_than_any_header_is_named(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "row.csv"
    path.write_text("content,status\nfine,draft\n" + ",".join(["x"] * 500) + "\n")
    said = refused(store, str(path))
    assert "row 3: 500 cells" in said
