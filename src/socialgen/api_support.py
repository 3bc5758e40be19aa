"""What every HTTP endpoint shares: the engine dependency, error bodies, 500 messages."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, TypeVar

from fastapi import Depends, Request
from pydantic import BaseModel
from sqlalchemy import Engine

from socialgen.errors import SocialgenError

logger = logging.getLogger("socialgen.api")

P = ParamSpec("P")
R = TypeVar("R")


class ErrorBody(BaseModel):
    success: bool = False
    message: str


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an endpoint can answer."""
    return {status: {"model": ErrorBody} for status in statuses}


def _engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


EngineDep = Annotated[Engine, Depends(_engine)]


def fails_with(message: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn an unexpected failure of the endpoint into a 500 with SPEC.md's message."""

    def decorate(endpoint: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(endpoint)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return endpoint(*args, **kwargs)
            except SocialgenError:
                raise
            except Exception as error:
                logger.exception("%s failed", endpoint.__name__)
                raise SocialgenError(message, status_code=500) from error

        return wrapper

    return decorate
