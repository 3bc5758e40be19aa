"""Where things live and how they are configured.

Every setting comes from config/loading.py (`load()`), read once by the Runtime
(app/runtime.py); `light_setting` and `get_settings` read a few without
pydantic-settings, for what every command needs first (the Runtime calls them). Both
ask `precedence.decide` which source wins (a command-line option, the environment, the
config file, the default, in that order), so they cannot disagree. Nothing here
imports a heavy module at import time.

`keys.py` declares every setting (key, variable, kind, default, strict and lenient
reading) and every other environment variable socialgen reads (`keys.OUTSIDE`:
`OLLAMA_HOST`, `HF_ENDPOINT`, `TZ`, the S3 endpoint ...), read through
`environment(name)`. `file.py` reads and writes `config.toml` (`set_value`,
`unset_value`); `provider_keys.py` keeps provider API keys beside it. Their commands are
in `admin/`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APP_NAME = "socialgen"
DATABASE_FILENAME = "socialgen.db"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str


def light_setting(name: str, options: Mapping[str, Any] | None = None) -> Any:
    """One setting, decided as load() decides it (precedence.decide: `options`, the
    command-line options given, then the environment, the config file, the default),
    without building the settings object: pydantic-settings stays unimported. For what
    every command needs first (where the store is, which workspace), so a quick
    command stays quick."""
    from socialgen.config.file import read_config
    from socialgen.config.keys import BY_NAME
    from socialgen.config.precedence import decide

    key = BY_NAME[name]
    return decide(key, options=options or {}, environ=os.environ, read_file=read_config).value


def environment(name: str) -> str:
    """A variable of keys.OUTSIDE (or a provider key's, or a setting's own variable:
    "is it set there?"), stripped; "" when unset. Outside the settings object, the
    one place that reads the environment."""
    from socialgen.config.keys import KEYS, OUTSIDE
    from socialgen.config.provider_keys import PROVIDERS

    declared = name in OUTSIDE or name in PROVIDERS.values()
    if not declared and name not in {key.env for key in KEYS}:
        raise KeyError(f"{name} is not declared in config/keys.py OUTSIDE")
    return (os.environ.get(name) or "").strip()


# Where a files_url bucket is served when it is not AWS, first set wins (as the AWS
# tools read them; obstore reads the credentials and the region itself).
S3_ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT")


def s3_endpoint() -> str | None:
    """The S3 endpoint of a files_url bucket, or None (AWS itself)."""
    return next((value for name in S3_ENDPOINT_ENVS if (value := environment(name))), None)


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
