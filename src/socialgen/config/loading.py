"""The one settings object: every setting README lists, typed, from (highest first)
a command-line option, the environment (SOCIALGEN_*), the config file, the default.

`load()` is the one reader: the Runtime calls it once (the first time a setting is
asked for) and keeps the object; plans and services get it from the Runtime. A
`config set` or an edited file is seen by the next command, and by a server after a
restart (docs/architecture.md, "Settings").

pydantic-settings costs ~0.1 s to import, so this module is imported on use only,
never at `socialgen --help`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from socialgen.config.file import FileValue, config_path, read_values
from socialgen.config.keys import BY_NAME, ENV_PREFIX, KEYS, lenient

# The config file's values while one AppSettings is built (its sources take no arguments).
_file_values: ContextVar[dict[str, Any] | None] = ContextVar("socialgen_file_values", default=None)


class AppSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="ignore", frozen=True
    )

    home: Path | None = None
    database_url: str | None = None
    workspace: str | None = None
    name: str | None = None  # the author's display name on slides
    model: str | None = None
    api_base: str | None = None
    small_model: bool | None = None  # None: the model's size decides
    engine: str | None = None  # None: llama-cpp when importable, else xllamacpp
    image_model: str | None = None
    image_api_base: str | None = None
    pdf_timeout: float = 30.0
    pdf_workers: int = 2
    pdf_queue: int = 8
    pdf_per_caller: int | None = None
    max_tokens: int = 700
    timeout: float = 120.0
    batch_concurrency: int | None = None
    keepalive_seconds: float = 15.0
    quota_lease_seconds: float = 120.0
    linkedin_profile_endpoint: str | None = None
    files_url: str | None = None
    files_redirect: bool = False
    file_cache_mb: int = 500
    allow_private_urls: bool = False
    secret_key: str | None = None
    publish_grace: timedelta = timedelta(hours=6)
    metrics_interval: timedelta = timedelta(hours=1)
    scheduler: bool = True
    scheduler_poll: timedelta = timedelta(seconds=1)
    publish_claim: timedelta = timedelta(minutes=5)
    bluesky_appview: str | None = None
    bluesky_app_password: str | None = None
    linkedin_client_id: str | None = None
    linkedin_client_secret: str | None = None
    linkedin_version: str = "202610"
    linkedin_timeout: float = 10.0
    linkedin_oauth_url: str | None = None
    timezone: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000

    @field_validator("*", mode="before")
    @classmethod
    def _as_before(cls, value: Any, info: ValidationInfo) -> Any:
        """Texts (from the environment) read as they always were: keys.lenient."""
        key = BY_NAME.get(info.field_name or "")
        if key is not None and isinstance(value, str):
            return lenient(key, value)
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # No .env file and no secrets dir: options, then the environment, then the file.
        file_source = InitSettingsSource(settings_cls, init_kwargs=_file_values.get() or {})
        return (init_settings, env_settings, file_source)


@dataclass(frozen=True)
class Origin:
    """Where a setting's value came from, as `config list` shows it."""

    kind: str  # "option", "env", "file", "default"
    detail: str = ""  # the variable, or PATH:LINE

    def __str__(self) -> str:
        return f"{self.kind} {self.detail}".strip()


@dataclass(frozen=True)
class Loaded:
    settings: AppSettings
    path: Path
    file: dict[str, FileValue]
    overrides: Mapping[str, Any]

    def origin(self, name: str) -> Origin:
        key = BY_NAME[name]
        if name in self.overrides:
            return Origin("option")
        if (os.environ.get(key.env) or "").strip():
            return Origin("env", key.env)
        if name in self.file:
            return Origin("file", f"{self.path}:{self.file[name].line}")
        return Origin("default")


def load(overrides: Mapping[str, Any] | None = None) -> Loaded:
    """The one reader of the settings; keyword arguments are command-line options
    (they win). The Runtime calls it once (runtime.py), `config list` to show origins."""
    overrides = {name: value for name, value in (overrides or {}).items() if value is not None}
    unknown = set(overrides) - set(BY_NAME)
    if unknown:
        raise TypeError(f"not settings: {sorted(unknown)}")
    path = config_path()
    file = read_values(path)
    token = _file_values.set({name: found.value for name, found in file.items()})
    try:
        settings = AppSettings(**overrides)
    finally:
        _file_values.reset(token)
    return Loaded(settings, path, file, overrides)


__all__ = ["KEYS", "AppSettings", "Loaded", "Origin", "load"]
