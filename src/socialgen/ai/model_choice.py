"""What `socialgen models default VALUE` writes: the value every later command can use.

`models pull` takes a catalogue name or `REPO/FILE.gguf`; `models default` takes the
same and writes the pulled file as `local/NAME`, or refuses, saying what to run
first. Any other value must be one litellm can route (ai/model_check.py): a string
written as is that fails every later command is the worst way to learn it was wrong.
"""

from __future__ import annotations

from pathlib import Path

from socialgen.ai.catalogue import known_model
from socialgen.ai.model_check import LOCAL_PREFIX
from socialgen.ai.model_files import GGUF, resolve_local, short_name
from socialgen.ai.remote import route_problem
from socialgen.kit.errors import BadRequest


def default_value(name: str, models: Path) -> str:
    """The model value for `name` (`models`: the models folder), or a BadRequest saying
    which value to use."""
    from socialgen.ai.hub_pull import destination, pull_target

    value = name.strip()
    if not value:
        raise BadRequest("Name a model: `socialgen models list` shows them")
    known = known_model(value)
    if known is not None or "/" not in value:  # a catalogue name, or a pulled file's
        return _pulled(known.name if known else value, models)
    if value.startswith(LOCAL_PREFIX):
        resolve_local(value.removeprefix(LOCAL_PREFIX), models)  # else a message saying how
        return value
    if value.lower().endswith(GGUF):  # what `models pull REPO/FILE.gguf` took
        target = pull_target(value)
        path = destination(target, models)
        if not path.is_file():
            raise BadRequest(
                f"{target.repo}/{target.filename} is not pulled yet: "
                f"run `socialgen models pull {value}` first"
            )
        return f"{LOCAL_PREFIX}{short_name(path)}"
    problem = route_problem(value)
    if problem is not None:
        raise BadRequest(f"Not set: {problem}")
    return value


def _pulled(name: str, models: Path) -> str:
    resolve_local(name, models)  # pulled? else "run `socialgen models pull NAME`"
    return f"{LOCAL_PREFIX}{name}"
