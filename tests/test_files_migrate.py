"""`socialgen files migrate`: a local files folder copied into a real bucket (moto's
server process), once, whatever the number of runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from socialgen.cli.main import app
from tests.conftest import Store
from tests.s3_support import Bucket


def local_files(root: Path, workspace_id: str, count: int) -> dict[str, bytes]:
    made = {}
    for n in range(count):
        key = f"{workspace_id}/carousels/{n % 3:032d}/slide-{n}-{n:010d}.jpg"
        made[key] = f"image {n}".encode() * (n + 1)
        path = root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(made[key])
    # Not the store's: a half-written file and a stray one at the top.
    (root / workspace_id / "carousels" / ".slide-9.jpg.123.partial").write_bytes(b"half")
    (root / "notes.txt").write_bytes(b"mine")
    return made


def run(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["files", "migrate", "--json", *args])
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(result.stdout)
    return summary


def test_migrate_copies_every_file_once(store: Store, bucket: Bucket) -> None:
    made = local_files(store.home / "files", store.workspace_id, 25)
    first = run()
    assert first["success"] is True
    assert (first["total"], first["copied"], first["skipped"], first["failed"]) == (25, 25, 0, 0)
    assert first["to"] == bucket.url
    assert bucket.objects() == sorted(made)
    assert all(bucket.read(key) == data for key, data in made.items())

    again = run()
    assert (again["total"], again["copied"], again["skipped"]) == (25, 0, 25)

    # A run cut short: what is missing is copied, the rest skipped.
    bucket.client().delete_object(Bucket=bucket.name, Key=f"team/{sorted(made)[0]}")
    resumed = run()
    assert (resumed["copied"], resumed["skipped"]) == (1, 24)
    assert bucket.objects() == sorted(made)
    assert (store.home / "files" / sorted(made)[0]).is_file()  # the local folder stays


def test_migrate_from_another_folder_with_a_progress_bar(
    store: Store, bucket: Bucket, tmp_path: Path
) -> None:
    made = local_files(tmp_path / "old-home-files", store.workspace_id, 4)
    result = CliRunner().invoke(
        app, ["files", "migrate", "--from", str(tmp_path / "old-home-files")]
    )
    assert result.exit_code == 0, result.output
    assert "4 copied, 0 already in" in result.stdout
    assert bucket.objects() == sorted(made)


def test_migrate_needs_a_bucket(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOCIALGEN_FILES_URL", raising=False)
    result = CliRunner().invoke(app, ["files", "migrate", "--json"])
    assert result.exit_code == 1
    assert "SOCIALGEN_FILES_URL is not set" in json.loads(result.stdout)["message"]
