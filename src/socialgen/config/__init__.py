"""Where things live and how they are configured.

Every setting comes from config/loading.py (`current_settings()`: a command-line
option, the environment, the config file, the default, in that order), cached on
what it was built from, so tests and long-lived processes see changes at once.
Nothing here imports a heavy module at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

APP_NAME = "socialgen"
DATABASE_FILENAME = "socialgen.db"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def current_settings() -> AppSettings:
    """Every setting, now (see config/loading.py)."""
    from socialgen.config import loading

    return loading.current_settings()


def data_dir() -> Path:
    """The data directory: the `home` setting when set, else the platform's data dir."""
    home = current_settings().home
    if home is not None:
        return home.expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def get_settings() -> Settings:
    home = data_dir()
    url = current_settings().database_url or f"sqlite:///{home / DATABASE_FILENAME}"
    return Settings(home=home, database_url=normalise_database_url(url))


def normalise_database_url(url: str) -> str:
    """Accept the URLs people paste (`postgres://`, `postgresql://`) and pick our driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url
