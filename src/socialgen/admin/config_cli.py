"""`socialgen config path | list | get | set | unset`: the config file from the terminal.

`list` shows each setting with where its value came from (`default`, `env
SOCIALGEN_X`, `file PATH:LINE`), like `git config --show-origin`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.support import JsonOpt, command_group, emit, styled

if TYPE_CHECKING:
    from socialgen.config.keys import Key
    from socialgen.config.loading import Loaded

app = command_group()  # its help: the feature's Group (feature.py)

KeyArg = Annotated[str, typer.Argument(help="A setting, e.g. model, api_base, publish_grace.")]


@app.command("path")
def path_command(json_output: JsonOpt = False) -> None:
    """Print where the config file is (SOCIALGEN_CONFIG moves it)."""
    from socialgen.config.file import config_path

    path = config_path()
    emit(json_output, {"path": str(path), "exists": path.exists()}, lambda out: out.print(path))


@app.command("list")
def list_command(json_output: JsonOpt = False) -> None:
    """Every setting: its value and where it came from."""
    from socialgen.config.keys import KEYS
    from socialgen.config.loading import load

    loaded = load()
    rows = [_row(loaded, key) for key in KEYS]
    emit(json_output, {"path": str(loaded.path), "settings": rows}, lambda out: _lines(out, rows))


@app.command("get")
def get_command(key: KeyArg, json_output: JsonOpt = False) -> None:
    """Print one setting's value (nothing when it is unset)."""
    from socialgen.config.file import ConfigError
    from socialgen.config.keys import UnknownKey, key_named
    from socialgen.config.loading import load

    try:
        found = key_named(key)
    except UnknownKey as error:
        raise ConfigError(str(error), status_code=400) from None
    row = _row(load(), found)
    emit(json_output, row, lambda out: out.print(_text(row)))


@app.command("set")
def set_command(
    key: KeyArg,
    value: Annotated[str, typer.Argument(help="The value, e.g. openai/gpt-4o-mini, 6h, 8080.")],
    json_output: JsonOpt = False,
) -> None:
    """Write a setting into the config file (checked first; comments are kept)."""
    from socialgen.config.file import set_value
    from socialgen.config.keys import key_named
    from socialgen.config.loading import load

    path = set_value(key, value)
    found = key_named(key)
    row = _row(load(), found)
    emit(json_output, {**row, "path": str(path)}, lambda out: _said(out, found, row, path))


@app.command("unset")
def unset_command(key: KeyArg, json_output: JsonOpt = False) -> None:
    """Remove a setting from the config file (back to the environment or default)."""
    from socialgen.config.file import unset_value
    from socialgen.config.keys import key_named
    from socialgen.config.loading import load

    path = unset_value(key)
    found = key_named(key)
    row = _row(load(), found)
    emit(json_output, {**row, "path": str(path)}, lambda out: _said(out, found, row, path))


def _row(loaded: Loaded, key: Key) -> dict[str, Any]:
    from socialgen.config.keys import json_value

    origin = loaded.origin(key.name)
    return {
        "key": key.name,
        "value": json_value(key, getattr(loaded.settings, key.name)),
        "origin": str(origin),
        "source": origin.kind,
        "env": key.env,
        "envOnly": key.env_only,
    }


def _lines(out: Any, rows: list[dict[str, Any]]) -> None:
    """One line per setting, never wrapped (paths with line numbers stay whole)."""
    width = max(len(row["key"]) for row in rows)
    shown = max(len(_text(row)) for row in rows)
    for row in rows:
        line = f"{row['key']:<{width}}  {_text(row):<{shown}}  {row['origin']}"
        out.print(line.rstrip(), soft_wrap=True)


def _text(row: dict[str, Any]) -> str:
    value = row["value"]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _said(out: Any, key: Key, row: dict[str, Any], path: Any) -> None:
    out.print(f"{key.name} = {_text(row)}  ({row['origin']})")
    if row["source"] == "env":  # the file changed, but the environment still wins
        out.print(
            styled(
                ("Note:", "yellow"), f" {key.env} is set in the environment and wins over {path}"
            )
        )
