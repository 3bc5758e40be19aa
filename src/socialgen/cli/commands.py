"""The command line built from the features (socialgen.app.features): each feature's
single commands, and its command groups with the commands other features add to
them (`extends`), loaded when a command line names them. The same path serves the
features found under socialgen/ and those a Runtime hands in."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from socialgen.app.features import features
from socialgen.app.registration import Feature, Group, resolve

if TYPE_CHECKING:
    import typer


@dataclass(frozen=True)
class LazyGroup:
    """A command group `socialgen --help` lists by its help, loaded when it is named."""

    help: str
    load: Callable[[], Any]  # -> the group's click command


def add_commands(app: typer.Typer) -> None:
    """The found features' single commands, in the features' order. Their groups are
    the root group's (`lazy_groups`): `socialgen --help` and `socialgen post ...`
    import none. An `extends` of a group no feature declares is refused here."""
    lazy_groups(features())
    for feature in features():
        for name, target in feature.commands:
            app.command(name)(resolve(target))


@cache
def lazy_groups(known: tuple[Feature, ...]) -> Mapping[str, LazyGroup]:
    """Every command group of `known`, each with the `extends` of `known` that add to
    it, by name; the same features give the same groups (and loaders)."""
    extensions: dict[str, list[str]] = {}
    for feature in known:
        for group_name, target in feature.extends:
            extensions.setdefault(group_name, []).append(target)
    groups = {group.name: group for feature in known for group in feature.groups}
    if unknown := set(extensions) - set(groups):
        raise LookupError(f"features extend unknown command groups: {sorted(unknown)}")
    return MappingProxyType(
        {
            name: LazyGroup(group.help, _loader(group, tuple(extensions.get(name, ()))))
            for name, group in groups.items()
        }
    )


def _loader(group: Group, extensions: tuple[str, ...]) -> Any:
    return lambda: load_group(group, extensions)


@cache
def load_group(group: Group, extensions: Iterable[str]) -> Any:
    """The group's click command, its extensions applied. Once per group and
    extensions: the extensions add their commands to the group's Typer app, so a
    second load would add them again (an in-process caller such as typer's CliRunner
    loads the group on every invoke; each load grew slower)."""
    from typer.main import get_group

    sub_app = resolve(group.target)
    for target in extensions:
        resolve(target)(sub_app)
    command = get_group(sub_app)
    command.name = group.name
    command.help = group.help
    return command


def single_command(name: str, target: str) -> Any:
    """The click command typer makes of one function, as `app.command(name)` would."""
    import typer

    holder = typer.Typer(rich_markup_mode=None, add_completion=False)
    holder.command(name)(resolve(target))
    command = typer.main.get_command(holder)
    command.name = name
    return command
