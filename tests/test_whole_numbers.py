"""An integer in a request body may come as 3.0 (JSON Schema's "integer" admits a
number whose fraction is zero, as schemathesis sends it); a fraction or a boolean is
still refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from socialgen.publishing.evergreen.schemas import EvergreenBody
from socialgen.publishing.followups.schemas import FirstCommentBody, PlugBody
from socialgen.publishing.queue.schemas import SlotsBody

CASES: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    (FirstCommentBody, {"text": "More: https://example.com"}, "delaySeconds"),
    (PlugBody, {"text": "My newsletter"}, "afterLikes"),
    (EvergreenBody, {"times": 2}, "everyDays"),
    (SlotsBody, {"slots": "Tue 08:30"}, "perDay"),
]


@pytest.mark.parametrize(("body", "fields", "name"), CASES)
def test_a_whole_float_is_an_integer_and_a_fraction_is_not(
    body: type[BaseModel], fields: dict[str, Any], name: str
) -> None:
    taken = body.model_validate({**fields, name: 3.0})
    assert taken.model_dump(by_alias=True)[name] == 3
    assert isinstance(taken.model_dump(by_alias=True)[name], int)
    for wrong in (2.5, True, "3"):
        with pytest.raises(ValidationError):
            body.model_validate({**fields, name: wrong})
    # The document still says "integer": nothing changes for a client that sends 3.
    assert "integer" in json.dumps(body.model_json_schema()["properties"][name])
