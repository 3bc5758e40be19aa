"""The CLI's local copies of bucket files (files.local_copy), against a real moto S3
server: pruned to the file_cache_mb setting (SOCIALGEN_FILE_CACHE_MB) after each
download, least recently used first, never the copy just asked for; the size and the
folder come with the Runtime's file store, read once with its settings."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of
from socialgen.files.local_copy import MB, local_copy
from socialgen.files.store import file_url
from tests.conftest import Store
from tests.s3_support import Bucket

KB = 1024


def cache_root() -> Path:
    """The cache of the file store a Runtime made now uses (the test's home)."""
    return files_of(Runtime()).copies.root


def cached() -> set[str]:
    root = cache_root()
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


def cache_bytes() -> int:
    return sum(path.stat().st_size for path in cache_root().rglob("*") if path.is_file())


def fill(bucket: Bucket, workspace: str, names: str) -> None:
    for name in names:  # 400 KB each: two fit in 1 MB, three do not
        bucket.write(f"{workspace}/carousels/{name}.pdf", name.encode() * (400 * KB))


def copy(workspace: str, name: str) -> Path:
    # The bucket SOCIALGEN_FILES_URL names (the `bucket` fixture): a Runtime's store,
    # with the cache its settings say (SOCIALGEN_FILE_CACHE_MB as the test set it).
    files = files_of(Runtime())
    return local_copy(files.backend, f"{workspace}/carousels/{name}.pdf", files.copies)


def test_the_cache_keeps_the_most_recently_used_copies_within_its_size(
    store: Store, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "1")
    ws = store.workspace_id
    fill(bucket, ws, "abcd")
    key = f"{ws}/carousels/{{}}.pdf"

    first = copy(ws, "a")
    copy(ws, "b")
    assert cached() == {key.format("a"), key.format("b")}  # 800 KB: both kept
    copy(ws, "a")  # a hit: a is now the most recently used
    copy(ws, "c")  # 1.2 MB: b, the least recently used, goes

    assert cached() == {key.format("a"), key.format("c")}
    assert first.read_bytes() == bucket.read(key.format("a"))
    assert cache_bytes() <= 1024 * KB
    copy(ws, "b")  # fetched again from the bucket; now a is the oldest
    assert cached() == {key.format("c"), key.format("b")}
    assert not (cache_root() / ws / "carousels" / "a.pdf").exists()


def test_the_copy_asked_for_stays_even_above_the_limit(
    store: Store, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "0")
    ws = store.workspace_id
    fill(bucket, ws, "ab")

    copy(ws, "a")
    path = copy(ws, "b")

    assert cached() == {f"{ws}/carousels/b.pdf"}  # a went, b is in use
    assert path.read_bytes() == b"b" * (400 * KB)
    assert not (cache_root() / ws / "carousels" / "a.pdf").exists()


def test_the_default_limit_keeps_everything_small(store: Store, bucket: Bucket) -> None:
    ws = store.workspace_id
    fill(bucket, ws, "abcd")

    for name in "abcd":
        copy(ws, name)

    assert len(cached()) == 4
    assert files_of(Runtime()).copies.limit_bytes == 500 * MB


@pytest.mark.parametrize("value", ["lots", "-3", "1.5"])
def test_a_bad_limit_is_reported_and_the_default_used(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, value: str
) -> None:
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", value)

    with caplog.at_level(logging.WARNING, logger="socialgen.config"):
        assert Runtime().settings.file_cache_mb == 500  # the default, as before

    assert f"SOCIALGEN_FILE_CACHE_MB={value!r}" in caplog.text


def test_the_cli_prunes_what_it_copied_for_carousel_show(
    store: Store, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CLI's entry (FileStore.path_for_url, which `carousel show` prints) goes
    # through the same cache.
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "1")
    path_for_url = store.files().path_for_url
    ws = store.workspace_id
    fill(bucket, ws, "abc")

    paths = [path_for_url(file_url(ws, f"carousels/{name}.pdf")) for name in "abc"]

    assert [path.exists() for path in paths] == [False, True, True]
    assert os.path.commonpath([paths[2], cache_root()]) == str(cache_root())


def test_a_cache_size_set_after_the_runtime_was_built_changes_nothing(
    store: Store, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size and the folder are read once, with the Runtime's settings: what a
    variable says later is for the next Runtime (the next command)."""
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "1")
    runtime = Runtime()
    files = files_of(runtime)
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "0")  # would keep only the last copy
    monkeypatch.setenv("SOCIALGEN_HOME", str(store.home / "moved"))
    ws = store.workspace_id
    fill(bucket, ws, "ab")

    paths = [files_of(runtime).path_for_url(file_url(ws, f"carousels/{n}.pdf")) for n in "ab"]

    assert files_of(runtime) is files
    assert [path.exists() for path in paths] == [True, True]  # 800 KB: within 1 MB
    assert all(path.is_relative_to(store.home / "cache" / "files") for path in paths)
    assert Runtime().settings.file_cache_mb == 0  # the next Runtime reads it
