"""body_fields: a JSON body's field taken loosely, documented as the type its service
accepts, with the schema generated from that type (no schema written by hand)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import ConfigDict, Field, StrictStr, ValidationError

from socialgen.kit.body_fields import CheckedBody, ShownAs

Name = Annotated[str, Field(min_length=1, max_length=20, pattern=r"\S")]


class Body(CheckedBody):
    model_config = ConfigDict(strict=True)

    name: Annotated[StrictStr | None, ShownAs(Name, required=True)] = Field(
        default=None, description="Not blank."
    )
    tags: Annotated[list[StrictStr] | None, ShownAs(list[Name] | None)] = None
    note: StrictStr | None = None


class WithWorkspace(Body):  # as the MCP tools' inputs extend the HTTP bodies
    workspaceId: StrictStr | None = None


def test_the_schema_is_the_shown_types_and_required_without_a_default() -> None:
    schema = Body.model_json_schema()
    name = {"type": "string", "minLength": 1, "maxLength": 20, "pattern": r"\S"}
    assert schema["required"] == ["name"]
    assert {key: schema["properties"]["name"][key] for key in name} == name
    assert "default" not in schema["properties"]["name"]
    assert schema["properties"]["tags"]["anyOf"] == [
        {"type": "array", "items": name},
        {"type": "null"},
    ]
    assert schema["properties"]["tags"]["default"] is None
    assert WithWorkspace.model_json_schema()["required"] == ["name"]


@pytest.mark.parametrize("data", [{}, {"name": None}, {"name": " "}, {"name": "x" * 50}])
def test_the_model_takes_what_its_service_refuses_with_its_own_message(
    data: dict[str, Any],
) -> None:
    assert Body.model_validate(data).name == data.get("name")


def test_a_wrong_type_is_still_refused() -> None:
    with pytest.raises(ValidationError, match="valid string"):
        Body.model_validate({"name": 5})
