"""The config file: `config.toml`, flat `key = value` lines, one per setting.

Where: SOCIALGEN_CONFIG when set; else `config.toml` in SOCIALGEN_HOME when that is
set (tests and sandboxes never read the user's own file); else the platform's config
dir (`~/.config/socialgen/config.toml` on Linux).

Reading validates every value (config/keys.py `strict`) and names the file and line
of the first one that does not fit. Writing goes through tomlkit, which keeps the
comments and layout a person wrote, to a temporary file renamed over the old one: a
crash or a refused value never leaves half a file.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialgen.config.keys import ENV_PREFIX, Key, UnknownKey, key_named, strict
from socialgen.kit.errors import SocialgenError

CONFIG_ENV = ENV_PREFIX + "CONFIG"
FILENAME = "config.toml"

_KEY_LINE = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=""")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


class ConfigError(SocialgenError):
    """A setting or the config file that cannot be used; the message says which and where."""

    status_code = 500


@dataclass(frozen=True)
class FileValue:
    value: Any  # typed (keys.strict)
    line: int


def config_path() -> Path:
    explicit = (os.environ.get(CONFIG_ENV) or "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = (os.environ.get(ENV_PREFIX + "HOME") or "").strip()
    if home:
        return Path(home).expanduser() / FILENAME
    from platformdirs import user_config_dir

    return Path(user_config_dir("socialgen", appauthor=False)) / FILENAME


def read_config() -> tuple[Path, dict[str, FileValue]]:
    """The config file's path and every setting in it (read_values)."""
    path = config_path()
    return path, read_values(path)


def read_values(path: Path) -> dict[str, FileValue]:
    """Every setting in the file, checked and typed, with its line; {} when no file."""
    text = _read_text(path)
    if text is None:
        return {}
    data = _parse(path, text)
    lines = key_lines(text)
    values: dict[str, FileValue] = {}
    for name, raw in data.items():
        line = lines.get(name, 1)
        if isinstance(raw, dict):
            raise ConfigError(f"{path}:{line}: [{name}]: settings are plain `key = value` lines")
        try:
            key = key_named(name)
        except UnknownKey as error:
            raise ConfigError(f"{path}:{line}: {error}") from None
        values[key.name] = FileValue(_checked(path, line, key, raw), line)
    return values


def set_value(key: str, value: str) -> Path:
    """Write `key = value` into the config file (checked first) and return its path.

    ConfigError for an unknown key, a value that does not fit, or a file that is not
    TOML; the file is then left exactly as it was."""
    found = _known(key)
    path = config_path()
    try:
        typed = _checked(path, None, found, value)
    except ConfigError as error:
        raise ConfigError(f"{error.message} ({path} was not changed)", status_code=400) from None
    from socialgen.config.keys import to_toml

    document = _document(path)
    document[found.name] = to_toml(found, typed)
    write_atomically(path, document.as_string())
    return path


def unset_value(key: str) -> Path:
    """Remove `key` from the config file (no error when it was not there); its path."""
    found = _known(key)
    path = config_path()
    document = _document(path)
    if found.name in document:
        del document[found.name]
        write_atomically(path, document.as_string())
    return path


def key_lines(text: str) -> dict[str, int]:
    """The line (1-based) of each top-level key in a TOML text."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("["):
            break  # a table: the keys after it are not settings
        match = _KEY_LINE.match(line)
        if match:
            name = next(group for group in match.groups() if group)
            lines.setdefault(name, number)
    return lines


def _known(name: str) -> Key:
    try:
        return key_named(name)
    except UnknownKey as error:
        raise ConfigError(str(error), status_code=400) from None


def _checked(path: Path, line: int | None, key: Key, raw: Any) -> Any:
    try:
        return strict(key, raw)
    except ValueError as error:
        where = f"{path}:{line}: " if line is not None else ""
        raise ConfigError(f"{where}{key.name}: {error}", status_code=400) from None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_syntax_message(path, str(error))) from None


def _syntax_message(path: Path, detail: str) -> str:
    at = _TOML_AT.search(detail)
    line = at.group(1) if at else "1"
    reason = _TOML_AT.sub("", detail).strip().rstrip(".")
    return f"{path}:{line}: not valid TOML ({reason}); fix or remove that line"


def _document(path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import ParseError

    text = _read_text(path)
    if text is None:
        return tomlkit.document()
    try:
        return tomlkit.parse(text)
    except ParseError as error:
        raise ConfigError(
            f"{path}:{error.line}: not valid TOML ({_tomlkit_reason(error)}); fix or remove "
            "that line"
        ) from None


def _tomlkit_reason(error: Exception) -> str:
    return re.sub(r"\s+at line \d+ col \d+$", "", str(error)).strip()


def write_atomically(path: Path, text: str, mode: int | None = None) -> None:
    """A temporary file beside the target, flushed, renamed over it: readers see the
    old file or the new one, never half of it. `mode`: else the old file's (the
    owner's choice; a new one is 0600, as mkstemp makes it); a folder made for it is
    0700."""
    from socialgen.kit.local_files import make_private_folders  # writes only, as tempfile

    try:
        make_private_folders(path.parent)
        if mode is None and path.exists():
            mode = path.stat().st_mode & 0o777
        import tempfile  # writes only: every command reads this module

        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise ConfigError(f"{path}: cannot write the file ({error.strerror})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise ConfigError(f"{path}: cannot write the file ({error.strerror})") from None
        raise
