"""No hand-written JSON schema under src/: a request body's OpenAPI schema is generated
by pydantic from the types that parse it (issue 29, item 3; docs/architecture.md).

A schema written by hand (`WithJsonSchema({...})`, a dict literal handed to
`json_schema_extra` or `openapi_extra`) says what its author meant, not what the
code accepts, and drifts from it. Instead: a body the endpoint reads itself is a
`body_models.BodyModel` (`openapi_extra=documented_body(Model, ...)`), and a field its
service checks is documented as the type it accepts (`body_fields.ShownAs(shape)`).
The one exception is `format`, a JSON Schema keyword pydantic's `Field` has no
parameter for (a URL that is a `str` with a pattern, not a parsed `AnyUrl`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "socialgen"
SCHEMA_KEYWORDS = frozenset({"json_schema_extra", "openapi_extra"})
ALLOWED_KEYS = frozenset({"format"})  # no pydantic parameter says it
BANNED_NAMES = frozenset({"WithJsonSchema", "DESCRIBES_ONLY"})


def hand_written_schemas(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for every hand-written schema in a module's source."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id in BANNED_NAMES:
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute) and node.attr in BANNED_NAMES:
            yield node.lineno, node.attr
        elif isinstance(node, ast.alias) and node.name.rpartition(".")[2] in BANNED_NAMES:
            yield node.lineno, f"import of {node.name}"
        elif (
            isinstance(node, ast.keyword)
            and node.arg in SCHEMA_KEYWORDS
            and isinstance(node.value, ast.Dict)
            and not _only_allowed_keys(node.value)
        ):
            yield node.value.lineno, f"{node.arg}= a dict literal"


def _only_allowed_keys(literal: ast.Dict) -> bool:
    return all(isinstance(key, ast.Constant) and key.value in ALLOWED_KEYS for key in literal.keys)


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(SRC)))
def test_no_schema_is_written_by_hand(path: Path) -> None:
    found = list(hand_written_schemas(path.read_text(encoding="utf-8")))
    assert found == [], [f"{path.relative_to(SRC.parent)}:{line}: {what}" for line, what in found]


PLANTED = """
from pydantic import WithJsonSchema
from fastapi import APIRouter, Query
import pydantic

A = Annotated[str | None, WithJsonSchema({"type": "string"})]
B = Annotated[str | None, pydantic.WithJsonSchema({"type": "string"})]
C = Annotated[str | None, Query(json_schema_extra={"pattern": "^x$"})]
D = ConfigDict(json_schema_extra={"required": ["name"]})
DESCRIBES_ONLY = frozenset({"x"})


@router.post("/x", openapi_extra={"requestBody": {"content": {}}})
def endpoint() -> None: ...
"""

ALLOWED = """
U = Annotated[str, Field(pattern="^https?://", json_schema_extra={"format": "uri"})]
E = ConfigDict(json_schema_extra=one_source)


@router.post("/x", openapi_extra=documented_body(Body, takes_files=True))
def endpoint() -> None: ...
"""


def test_the_check_finds_planted_schemas_and_passes_generated_ones() -> None:
    found = [what for _line, what in hand_written_schemas(PLANTED)]
    assert found.count("import of WithJsonSchema") == 1
    assert found.count("WithJsonSchema") == 2  # a name and an attribute
    assert found.count("json_schema_extra= a dict literal") == 2
    assert found.count("openapi_extra= a dict literal") == 1
    assert "DESCRIBES_ONLY" in found
    assert list(hand_written_schemas(ALLOWED)) == []
