"""The one settings object: every setting README lists, typed, from (highest first)
a command-line option, the environment (SOCIALGEN_*), the config file, the default.

`load()` is the one reader: the Runtime calls it once (the first time a setting is
asked for) and keeps the object; plans and services get it from the Runtime. A
`config set` or an edited file is seen by the next command, and by a server after a
restart (docs/architecture.md, "Settings"). Which source wins is not decided here:
the object's one source asks precedence.decide for every key, as light_setting does.

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
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from socialgen.config.file import FileValue, read_config
from socialgen.config.keys import BY_NAME, ENV_PREFIX, KEYS, lenient
from socialgen.config.precedence import Decided, Origin, decide

# The config file (path, values) while load() builds one AppSettings: a source takes
# no arguments. Unset (an AppSettings built outside load()): no file is read.
_config_file: ContextVar[tuple[Path, dict[str, FileValue]] | None] = ContextVar(
    "socialgen_config_file", default=None
)


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
    mcp_sessions_per_caller: int = 20
    mcp_session_idle: timedelta = timedelta(minutes=10)
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
    history_deadline: timedelta = timedelta(minutes=5)
    history_pages: int = 500
    bluesky_appview: str | None = None
    bluesky_app_password: str | None = None
    linkedin_client_id: str | None = None
    linkedin_client_secret: str | None = None
    linkedin_version: str = "202610"
    linkedin_timeout: float = 10.0
    network_timeout: float = 10.0
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
        # One source, no .env file and no secrets dir: the keyword arguments (the
        # command-line options) go to precedence.decide with the rest.
        return (_Decided(settings_cls, options=init_settings()),)


class _Decided(PydanticBaseSettingsSource):
    """Every setting's value as precedence.decide gives it (the default included:
    keys.py's, the one light_setting gives)."""

    def __init__(self, settings_cls: type[BaseSettings], *, options: Mapping[str, Any]) -> None:
        super().__init__(settings_cls)
        self.options = options
        # Path() stands for no file: with no values, no origin ever names it.
        self.file = _config_file.get() or (Path(), {})

    def decided(self, name: str) -> Decided:
        return decide(
            BY_NAME[name], options=self.options, environ=os.environ, read_file=lambda: self.file
        )

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.decided(field_name).value, field_name, False

    def __call__(self) -> dict[str, Any]:
        return {key.name: self.decided(key.name).value for key in KEYS}


@dataclass(frozen=True)
class Loaded:
    settings: AppSettings
    path: Path
    file: dict[str, FileValue]
    overrides: Mapping[str, Any]

    def origin(self, name: str) -> Origin:
        decided = decide(
            BY_NAME[name],
            options=self.overrides,
            environ=os.environ,
            read_file=lambda: (self.path, self.file),
        )
        return decided.origin


def load(overrides: Mapping[str, Any] | None = None) -> Loaded:
    """The one reader of the settings; keyword arguments are command-line options
    (they win). The Runtime calls it once (runtime.py), `config list` to show origins."""
    overrides = {name: value for name, value in (overrides or {}).items() if value is not None}
    unknown = set(overrides) - set(BY_NAME)
    if unknown:
        raise TypeError(f"not settings: {sorted(unknown)}")
    path, file = read_config()
    token = _config_file.set((path, file))
    try:
        settings = AppSettings(**overrides)
    finally:
        _config_file.reset(token)
    return Loaded(settings, path, file, overrides)


__all__ = ["KEYS", "AppSettings", "Loaded", "Origin", "load"]
