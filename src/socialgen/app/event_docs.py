"""The docs' event tables, written from the event models and the streams the
features declare.

`python -m socialgen.app.event_docs` rewrites the part of docs/http-api.md between
`<!-- events:begin -->` and `<!-- events:end -->`; `--check` only says whether it is
current (a test does the same), so the tables cannot drift from the models.
"""

from __future__ import annotations

import inspect
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from socialgen.app.features import streams
from socialgen.events.payload import EventPayload, WireObject

BEGIN = "<!-- events:begin -->"
END = "<!-- events:end -->"
DEFAULT_PATH = Path("docs/http-api.md")
_SCALARS = {str: "string", int: "integer", bool: "boolean", float: "number"}


def event_tables() -> str:
    """The Markdown between the markers: which stream sends what, then each event once
    (under the first stream that sends it) with its fields."""
    lines = [
        "<!-- Written by `python -m socialgen.app.event_docs` from the streams' event models;"
        " edit the models, not this. -->",
        "",
        "| Stream | Endpoint | Events |",
        "|---|---|---|",
    ]
    for stream in streams():
        names = ", ".join(f"`{model.event_name}`" for model in stream.events)
        form = " (data is `{type, data}`)" if stream.typed else ""
        lines.append(f"| {stream.title}{form} | `{stream.endpoint}` | {names} |")
    shown: set[str] = set()
    for stream in streams():
        new = [model for model in stream.events if model.event_name not in shown]
        if not new:
            continue
        shown.update(model.event_name for model in new)
        lines += ["", f"### {stream.title}", "", "| Event | Field | Type | Description |"]
        lines.append("|---|---|---|---|")
        for model in new:
            lines += _event_rows(model)
    return "\n".join(lines) + "\n"


def _event_rows(model: type[EventPayload]) -> list[str]:
    about = _one_line(inspect.getdoc(model) or "")
    if not model.model_fields:
        about += " Its data is `{}`."
    rows = [f"| `{model.event_name}` | | | {_cell(about)} |"]
    rows += [f"| | `{path}` | {kind} | {_cell(text)} |" for path, kind, text in _fields(model, "")]
    return rows


def _fields(model: type[WireObject], prefix: str) -> Iterator[tuple[str, str, str]]:
    for name, info in model.model_fields.items():
        path = prefix + name
        kind = _type(info.annotation)
        if not info.is_required():
            kind += ", optional"
        yield path, kind, info.description or ""
        nested, suffix = _object_of(info.annotation)
        if nested is not None:
            yield from _fields(nested, f"{path}{suffix}.")


def _object_of(annotation: Any) -> tuple[type[WireObject] | None, str]:
    """The object model a field holds (itself, or in a list: `[]` in the path), if any."""
    annotation = _without_none(annotation)
    if get_origin(annotation) is list:
        inner, _ = _object_of(get_args(annotation)[0])
        return inner, "[]"
    if inspect.isclass(annotation) and issubclass(annotation, WireObject):
        return annotation, ""
    return None, ""


def _type(annotation: Any) -> str:
    annotation = _without_none(annotation)
    origin = get_origin(annotation)
    if origin is Literal:
        return " or ".join(f"`{json.dumps(value)}`" for value in get_args(annotation))
    if origin is list:
        return f"array of {_plural(_type(get_args(annotation)[0]))}"
    if origin is dict:
        key, value = get_args(annotation)
        return f"object of {_type(key)} to {_type(value)}"
    if inspect.isclass(annotation) and issubclass(annotation, WireObject):
        return "object"
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    raise TypeError(f"no docs type for {annotation!r}: teach socialgen.app.event_docs")


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(kept) == 1:
            return kept[0]
    return annotation


def _plural(kind: str) -> str:
    return kind if "`" in kind else kind + "s"  # "array of strings", not of `"a"`s


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


def with_tables(document: str, tables: str) -> str:
    """The document with what lies between the markers replaced by `tables`."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the document needs {BEGIN} … {END} where the event tables go")
    return document[: start + len(BEGIN)] + "\n" + tables + document[end:]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [arg for arg in argv if arg != "--check"]
    path = Path(paths[0]) if paths else DEFAULT_PATH
    document = path.read_text(encoding="utf-8")
    updated = with_tables(document, event_tables())
    if updated == document:
        return 0
    if check:
        print(f"{path}: the event tables are out of date; run python -m socialgen.app.event_docs")
        return 1
    path.write_text(updated, encoding="utf-8")
    print(f"{path}: event tables written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
