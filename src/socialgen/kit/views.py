"""The base of the views: what an endpoint answers, `--json` prints and an MCP tool
returns is one pydantic model, whichever face dumps it (SPEC.md's field names).

A name Python cannot take as a field (`_id`, `from`) is the field's alias, and a view
dumps by alias wherever it is dumped: FastAPI, the MCP SDK and `json_data` alike. A
field SPEC.md leaves out, rather than setting it to null, is typed `... | MISSING`
with the default `MISSING` (pydantic's sentinel): every dump leaves it out until it
is given, while null stays a value of its own.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class View(BaseModel):
    """A view. Built from rows the service has checked, so it is not strict: its
    types document the shape and keep a drift between service and view visible."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)

    def json_data(self) -> dict[str, Any]:
        """The JSON object, as `--json` prints it."""
        return self.model_dump(mode="json")
