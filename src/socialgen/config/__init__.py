"""Where things live and how they are configured.

Every setting comes from config/loading.py (`current_settings()`: a command-line
option, the environment, the config file, the default, in that order), cached on
what it was built from, so tests and long-lived processes see changes at once.
Nothing here imports a heavy module at import time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


def light_setting(name: str) -> Any:
    """One setting, read as current_settings() reads it (environment, then the config
    file, then the default; no command-line option sets these), without building the
    settings object: pydantic-settings stays unimported. For what every command needs
    first (where the store is, which workspace), so a quick command stays quick."""
    from socialgen.config.file import config_path, read_values
    from socialgen.config.keys import BY_NAME, lenient

    key = BY_NAME[name]
    text = os.environ.get(key.env) or ""
    if text:  # as the settings object: an empty variable is not set
        return lenient(key, text)
    found = read_values(config_path()).get(name)
    return key.default if found is None else found.value


def data_dir() -> Path:
    """The data directory: the `home` setting when set, else the platform's data dir."""
    home = light_setting("home")
    if home:
        return Path(home).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def get_settings() -> Settings:
    home = data_dir()
    url = light_setting("database_url") or f"sqlite:///{home / DATABASE_FILENAME}"
    return Settings(home=home, database_url=normalise_database_url(url))


def normalise_database_url(url: str) -> str:
    """Accept the URLs people paste (`postgres://`, `postgresql://`) and pick our driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url
