"""Open the store: make SOCIALGEN_HOME private, migrate to head and create the
first-run defaults, once per Runtime (its `Stores` remembers); give back the quota of
owners that died holding it (at open, and in `serve` on a timer: quota_upkeep)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from socialgen.config import Settings
from socialgen.kit.local_files import make_private_folders, tighten
from socialgen.store.engine import read_session, transaction
from socialgen.store.migrate import HEAD_REVISION, current_revision, store_lock, upgrade
from socialgen.store.stores import Stores
from socialgen.workspaces.bootstrap import ensure_defaults
from socialgen.workspaces.quota_upkeep import reconcile_quietly
from socialgen.workspaces.service import default_workspace

logger = logging.getLogger("socialgen.app.startup")

# What socialgen writes in SOCIALGEN_HOME; only these are tightened (the home may be a
# folder that holds other things, even the user's own home).
_OWN_FILES = ("secret.key", "config.toml", "provider-keys.json")
_OWN_FOLDERS = ("files", "cache", "models")
_SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def open_store(stores: Stores, settings: Settings) -> Engine:
    """`settings`: where the store is (a Runtime's `store_settings`); `stores`: the
    Runtime's engines (Runtime.open_store is this with its own)."""
    engine = stores.engine(settings.database_url)
    if stores.is_ready(settings.database_url):
        return engine
    if note := make_home_private(settings.home, settings.database_url):
        print(note, file=sys.stderr)  # once: the next run finds nothing to change
    if not _is_ready(engine):
        # Double-checked under the lock: concurrent first runs migrate once.
        with store_lock(engine):
            upgrade(engine)
            with transaction(engine) as session:
                ensure_defaults(session)
    # A CLI command or server killed earlier may have left reserved posts behind.
    reconcile_quietly(engine, stores.lease.seconds)
    stores.mark_ready(settings.database_url)
    return engine


def make_home_private(home: Path, database_url: str) -> str | None:
    """SOCIALGEN_HOME 0700, and what socialgen keeps in it (the SQLite store with its
    -wal and -shm, the key file, config, provider keys, the files/, cache/ and models/
    trees) folders 0700, files 0600. A store made before this was enforced is tightened
    here, once; returns the one line that says so, or None when nothing changed."""
    if not home.exists():
        make_private_folders(home)
    changed = tighten(home)
    for name in _OWN_FILES:
        changed += tighten(home / name)
    for name in _OWN_FOLDERS:
        changed += tighten(home / name, deep=True)
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database).expanduser()
        for suffix in _SQLITE_SUFFIXES:
            changed += tighten(database.with_name(database.name + suffix))
        changed += tighten(database.with_suffix(".lock"))  # store/migrate.py's
    if not changed:
        return None
    return (
        f"socialgen: made {home} private to you: {changed} folder(s) now 0700 and file(s) "
        "0600 (they were readable by other users)"
    )


def _is_ready(engine: Engine) -> bool:
    if current_revision(engine) != HEAD_REVISION:
        return False
    with read_session(engine) as session:
        return default_workspace(session) is not None
