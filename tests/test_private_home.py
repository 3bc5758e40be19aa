"""SOCIALGEN_HOME is private to its user whatever the umask, an older world-readable
one is tightened once with a note, and a lost key file is an error, never a new key
(issue 25, 4). Modes are read from the real file system; the store is a real SQLite
file (these checks are about files: the key check also runs on PostgreSQL)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.config.file import write_atomically
from socialgen.files.local import LocalFolder
from socialgen.publishing.accounts import service as accounts
from socialgen.publishing.secrets import (
    KEY_ENV,
    SecretKeyError,
    SecretKeys,
    decrypt_secret,
    encrypt_secret,
)
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import SocialAccount
from tests.conftest import Store
from tests.outbox_support import add_account

runner = CliRunner()


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A SOCIALGEN_HOME that does not exist yet, on SQLite."""
    home = tmp_path / "not-yet" / "home"
    monkeypatch.setenv("SOCIALGEN_HOME", str(home))
    monkeypatch.delenv("SOCIALGEN_DATABASE_URL", raising=False)
    monkeypatch.delenv("SOCIALGEN_CONFIG", raising=False)
    monkeypatch.delenv(KEY_ENV, raising=False)
    yield home


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def modes(home: Path) -> dict[str, int]:
    """Every folder and file under `home` (itself included) -> its permission bits."""
    found = {".": stat.S_IMODE(home.stat().st_mode)}
    for folder, folders, files in os.walk(home):
        for name in (*folders, *files):
            path = Path(folder, name)
            found[path.relative_to(home).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return found


def private(found: dict[str, int], home: Path) -> dict[str, str]:
    """What is not as it should be: folders 0700, files 0600."""
    wrong = {}
    for name, mode in found.items():
        wanted = 0o700 if (home / name).is_dir() else 0o600
        if mode != wanted:
            wrong[name] = oct(mode)
    return wrong


@pytest.mark.parametrize("umask", [0o022, 0o000], indirect=True)
def test_everything_socialgen_writes_in_its_home_is_private(fresh_home: Path, umask: int) -> None:
    runtime = Runtime()
    engine = runtime.open_store()  # migrates: writes through the -wal file, beside its -shm
    keys = SecretKeys.of(runtime)
    with read_session(engine) as session:
        token = encrypt_secret({"password": "pw-secret-1234"}, session, keys)  # secret.key
    assert decrypt_secret(token, keys) == {"password": "pw-secret-1234"}
    LocalFolder(fresh_home / "files").put("ws/carousels/c1/slide-0.png", b"png")
    write_atomically(fresh_home / "config.toml", 'model = "x"\n')
    found = modes(fresh_home)
    for name in ("socialgen.db", "socialgen.db-wal", "socialgen.db-shm", "secret.key"):
        assert name in found, sorted(found)
    assert "files/ws/carousels/c1/slide-0.png" in found and "config.toml" in found
    assert private(found, fresh_home) == {}, found
    assert stat.S_IMODE(fresh_home.parent.stat().st_mode) == 0o700  # made for it, too
    assert not [n for n in found if n.endswith(".partial") or "/." in n]
    runtime.close()


def test_an_existing_open_home_is_tightened_once_with_a_note(fresh_home: Path) -> None:
    runtime = Runtime()
    with read_session(runtime.open_store()) as session:
        encrypt_secret({"password": "pw-secret-1234"}, session, SecretKeys.of(runtime))
    LocalFolder(fresh_home / "files").put("ws/images/a.png", b"png")
    (fresh_home / "cache").mkdir()
    (fresh_home / "cache" / "copy.pdf").write_bytes(b"%PDF")
    mine = fresh_home / "my-notes.txt"  # not socialgen's: left as it is
    mine.write_text("hello")
    for path in (fresh_home, fresh_home / "files", fresh_home / "files" / "ws"):
        os.chmod(path, 0o755)  # as an earlier version left them under umask 022
    for path in (
        fresh_home / "socialgen.db",
        fresh_home / "secret.key",
        fresh_home / "files" / "ws" / "images" / "a.png",
        fresh_home / "cache" / "copy.pdf",
        mine,
    ):
        os.chmod(path, 0o644)
    os.chmod(fresh_home / "cache", 0o755)
    runtime.close()

    result = runner.invoke(app, ["accounts", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert f"socialgen: made {fresh_home} private to you" in result.stderr
    assert result.stderr.count("\n") == 1  # one line
    found = modes(fresh_home)
    assert found.pop("my-notes.txt") == 0o644
    assert private(found, fresh_home) == {}, found

    again = runner.invoke(app, ["accounts", "list", "--json"])
    assert again.exit_code == 0 and again.stderr == ""  # nothing left to say


@pytest.fixture
def no_key_variable(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")  # the accounts' 127.0.0.1
    return store


def test_a_lost_key_file_is_an_error_and_never_replaced(no_key_variable: Store) -> None:
    store = no_key_variable
    first = add_account(store, "@one.test")
    add_account(store, "@two.test")
    keys = SecretKeys.of(Runtime())
    path = keys.key_file
    assert path.is_file()
    path.unlink()  # a restore without it, a cleanup gone wrong

    with transaction(store.engine) as session:
        account = session.get(SocialAccount, first)
        assert account is not None
        with pytest.raises(SecretKeyError) as error:
            accounts.credentials_for(account, keys)
    said = error.value.message
    assert f"The secret key {path} is missing" in said and "2 social account(s)" in said
    assert "restore the file from a backup" in said and KEY_ENV in said
    assert "socialgen accounts remove" in said
    with (
        pytest.raises(SecretKeyError, match="is missing"),
        read_session(store.engine) as session,
    ):
        encrypt_secret({"password": "another"}, session, keys)  # adding an account: no new key
    result = runner.invoke(app, ["accounts", "check", "@one.test"])
    assert result.exit_code != 0 and "is missing" in result.output
    assert "Traceback" not in result.output
    assert not path.exists()  # never made behind the user's back

    for handle in ("@one.test", "@two.test"):  # starting over
        removed = runner.invoke(app, ["accounts", "remove", handle, "--yes"])
        assert removed.exit_code == 0, removed.output
    with read_session(store.engine) as session:
        token = encrypt_secret({"password": "new"}, session, keys)
        assert decrypt_secret(token, keys) == {"password": "new"}
    assert path.is_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
