"""Where things live and how they are configured.

Read from the environment on every call (it is cheap) so tests and long-lived
processes see the same rules; nothing here imports a heavy module.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "socialgen"
DATABASE_FILENAME = "socialgen.db"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def data_dir() -> Path:
    """The data directory: `SOCIALGEN_HOME` when set, else the platform's data dir."""
    home = os.environ.get("SOCIALGEN_HOME")
    if home:
        return Path(home).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def get_settings() -> Settings:
    home = data_dir()
    url = os.environ.get("SOCIALGEN_DATABASE_URL") or f"sqlite:///{home / DATABASE_FILENAME}"
    return Settings(home=home, database_url=normalise_database_url(url))


def normalise_database_url(url: str) -> str:
    """Accept the URLs people paste (`postgres://`, `postgresql://`) and pick our driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url
