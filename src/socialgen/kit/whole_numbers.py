"""An integer field of a request body that takes 3.0 as 3.

JSON Schema's "integer" counts a number whose fraction is zero as an integer (6706.0
is valid), and clients that compute in floating point send such numbers; pydantic's
strict int refuses them. A fraction (2.5) and a boolean are still refused in pydantic's
own words.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, StrictInt


def _whole(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value  # anything else is StrictInt's to judge


WholeInt = Annotated[StrictInt, BeforeValidator(_whole)]
