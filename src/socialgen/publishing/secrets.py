"""Account secrets (app passwords, OAuth tokens) encrypted at rest with Fernet.

The key never lives in the database, so a copied database (a backup, a dump sent
with a bug report) holds nothing usable. It comes from `SOCIALGEN_SECRET_KEY` (one
Fernet key, or several separated by commas to rotate: the first encrypts, any
decrypts; every `serve` machine sharing a database must share this variable), else
from a key file under `SOCIALGEN_HOME`, created 0600 on first use. Both are read once,
with the rest of the settings: the Runtime's `SecretKeys` (`SecretKeys.of(runtime)`,
carried by its `Networks`) is handed to every function here, so a variable set later
changes nothing until the next command or server start. A key file is made
only while no account holds a secret: one that went missing while accounts are
encrypted with it is an error that says how to restore it, never a new key (with a
new key every account would fail later with "key changed", hiding what happened).

The key file is written to a private temporary file and then hard-linked into place:
the link either creates the name with complete contents or fails because another
process won the race, whose key we then read. So two processes starting together
agree on one key, and no one ever reads a half-written file.
"""

from __future__ import annotations

import json
import logging
import os
import secrets as random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from socialgen.kit.errors import SocialgenError
from socialgen.kit.local_files import make_private_folders

if TYPE_CHECKING:
    from cryptography.fernet import MultiFernet
    from sqlmodel import Session

    from socialgen.app.runtime import Runtime

logger = logging.getLogger("socialgen.publishing")

KEY_ENV = "SOCIALGEN_SECRET_KEY"
KEY_FILENAME = "secret.key"
KEY_CHANGED = (
    "The account's stored credentials cannot be decrypted: the secret key "
    f"({KEY_ENV} or the key file under SOCIALGEN_HOME) changed since the account was "
    "added. Add the account again."
)


class SecretKeyError(SocialgenError):
    """The key is missing or malformed: a server configuration problem, not the caller's."""

    status_code = 500


class SecretUnreadable(SocialgenError):
    """A stored secret that the current key cannot open (the key changed)."""

    status_code = 409


@dataclass(frozen=True)
class SecretKeys:
    """Where the key comes from, as the Runtime's settings say (read once with them):
    `configured`, the secret_key setting (SOCIALGEN_SECRET_KEY, environment only),
    else the key file `key_file` in the data directory."""

    key_file: Path
    configured: str | None = field(default=None, repr=False)  # the key: never shown

    @classmethod
    def of(cls, runtime: Runtime) -> SecretKeys:
        """The Runtime's: its secret_key setting, and the key file in its home."""
        configured = (runtime.settings.secret_key or "").strip() or None
        return cls(runtime.store_settings.home / KEY_FILENAME, configured)


def encrypt_secret(fields: dict[str, str], session: Session, keys: SecretKeys) -> str:
    """The fields as one Fernet token (text), ready for `secret_ciphertext`. `session`:
    the store the account is written to, whose accounts decide whether a missing key
    file may be made; `keys`: the Runtime's."""
    plain = json.dumps(fields, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return _fernet(keys, session, may_create=True).encrypt(plain).decode("ascii")


def decrypt_secret(token: str, keys: SecretKeys, session: Session | None = None) -> dict[str, str]:
    """The fields `encrypt_secret` stored. Never puts the token or the plaintext in an
    error: a wrong key is reported as a changed key, anything else as unreadable.
    `keys`: the Runtime's; `session`: the account's store, to say how many accounts a
    missing key holds."""
    from cryptography.fernet import InvalidToken

    try:
        plain = _fernet(keys, session, may_create=False).decrypt(token.encode("ascii"))
    except (InvalidToken, UnicodeEncodeError):
        raise SecretUnreadable(KEY_CHANGED) from None
    try:
        fields = json.loads(plain.decode("utf-8"))
    except ValueError:
        fields = None
    if not isinstance(fields, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in fields.items()
    ):
        raise SecretUnreadable("The account's stored credentials are damaged. Add it again.")
    return fields


def new_key() -> str:
    """A fresh Fernet key (what `SOCIALGEN_SECRET_KEY` holds)."""
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode("ascii")


def _fernet(keys: SecretKeys, session: Session | None, *, may_create: bool) -> MultiFernet:
    """The key(s); `may_create`: a missing key file may be made (to encrypt, and only
    while no account holds a secret)."""
    from cryptography.fernet import Fernet, MultiFernet

    if keys.configured:
        texts = [part.strip() for part in keys.configured.split(",") if part.strip()]
        source = KEY_ENV
    else:
        texts = [_key_from_file(keys.key_file, session, may_create=may_create)]
        source = f"the key file {keys.key_file}"
    try:
        return MultiFernet([Fernet(text.encode("ascii")) for text in texts])
    except (ValueError, UnicodeEncodeError):
        # Never echo the value: it is the key.
        raise SecretKeyError(
            f"{source} does not hold a valid Fernet key (32 url-safe base64-encoded bytes)"
        ) from None


def _key_from_file(path: Path, session: Session | None, *, may_create: bool) -> str:
    try:
        return _read_complete(path)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as error:
        raise SecretKeyError(f"Cannot read the key file {path}: {type(error).__name__}") from None
    if session is None:  # decrypting without the store: this account's secret, at least
        encrypted: int | None = 0
    else:
        encrypted = _encrypted_accounts(session)
    if encrypted != 0 or not may_create:
        raise SecretKeyError(key_missing(path, encrypted))
    return _create_key_file(path)


def key_missing(path: Path, encrypted: int | None) -> str:
    if encrypted is None:
        return (
            f"The secret key {path} is missing and the store could not be read to tell "
            "whether social accounts are encrypted with it, so no new key was made: "
            f"restore the file from a backup (or set {KEY_ENV}), or try again"
        )
    held = f"{encrypted} social account(s) are" if encrypted else "the account's secret is"
    return (
        f"The secret key {path} is missing, but {held} encrypted with it: restore the "
        f"file from a backup (or set {KEY_ENV} to the key). No new key was made, since "
        "those accounts could not be read with it. To start over without them, remove "
        "them with `socialgen accounts remove ACCOUNT` (`socialgen accounts list` shows "
        "them) in each workspace"
    )


def _encrypted_accounts(session: Session) -> int | None:
    """How many accounts hold a secret in `session`'s store; None when it cannot be
    read (then no key is made either). In a savepoint, so a failure leaves the
    caller's transaction usable."""
    from socialgen.publishing.accounts.repository import encrypted_count

    try:
        with session.begin_nested():
            return encrypted_count(session)
    except Exception:
        logger.warning("could not count the encrypted accounts", exc_info=True)
        return None


def _create_key_file(path: Path) -> str:
    make_private_folders(path.parent)
    key = new_key()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{random.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            os.chmod(temporary, 0o600)  # whatever the umask made of the mode
            handle.write(key + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # atomic, and fails if the name exists
        except FileExistsError:
            return _read_complete(path)  # another process won: use its key
        except OSError:  # a file system without hard links
            return _create_exclusively(path, key)
    finally:
        temporary.unlink(missing_ok=True)
    return key


def _create_exclusively(path: Path, key: str) -> str:
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_complete(path)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key


def _read_complete(path: Path) -> str:
    """The key another process created. Only the O_EXCL fallback can show an empty file
    for a moment (created, not yet written): wait a little for its contents."""
    for _ in range(50):
        key = path.read_text(encoding="ascii").strip()
        if key:
            return key
        time.sleep(0.02)
    raise SecretKeyError(f"The key file {path} is empty")
