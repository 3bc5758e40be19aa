"""What every HTTP endpoint shares: the engine and model dependencies, error bodies,
500 messages."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, TypeVar

from fastapi import Depends, Request
from pydantic import BaseModel
from sqlalchemy import Engine

from socialgen.ai.image_types import ImageModel
from socialgen.ai.model import TextModel
from socialgen.app.runtime import Runtime
from socialgen.config.loading import AppSettings
from socialgen.files.backends import files_of
from socialgen.files.store import FileStore
from socialgen.kit.errors import SocialgenError

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


def get_runtime(request: Request) -> Runtime:
    """The app's Runtime (create_app made it, or a test handed one in)."""
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


async def runtime_settings(runtime: RuntimeDep) -> AppSettings:
    """The app's settings (its Runtime's: read once, at the first request)."""
    return runtime.settings


SettingsDep = Annotated[AppSettings, Depends(runtime_settings)]


async def get_text_model(runtime: RuntimeDep) -> TextModel:
    """The app's text model, from its Runtime. A dependency of its own, so that a test
    may also put a scripted model in its place (`app.dependency_overrides`).
    Async only to skip the thread pool FastAPI runs sync dependencies in: it is cheap."""
    return runtime.text_model()


async def get_image_model(runtime: RuntimeDep) -> ImageModel:
    """The app's image model, from its Runtime (overridable like get_text_model)."""
    return runtime.image_model()


# Declare these after the workspace guard in an endpoint's signature: FastAPI solves
# dependencies in order, and a misconfigured model should not answer before auth does.
TextModelDep = Annotated[TextModel, Depends(get_text_model)]
ImageModelDep = Annotated[ImageModel, Depends(get_image_model)]


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


def runtime_files(runtime: RuntimeDep) -> FileStore:
    """Where the app keeps its files (its Runtime's, made at the first use). Sync: the
    first call may build the settings, in FastAPI's thread pool. Routes declare it
    after their workspace guard: a misconfigured bucket answers after auth does."""
    return files_of(runtime)


FilesDep = Annotated[FileStore, Depends(runtime_files)]
