"""The config file's public functions, for other code (e.g. a command that makes a
model the default: `set_value("model", name)`). See socialgen/config/file.py."""

from __future__ import annotations

from socialgen.config.file import ConfigError, config_path, set_value, unset_value

__all__ = ["ConfigError", "config_path", "set_value", "unset_value"]
