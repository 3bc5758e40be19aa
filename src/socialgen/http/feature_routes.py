"""The app's routes and lifespan work, built from the features (socialgen.app.features):
those found under socialgen/ and those the app's Runtime handed in, by one path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI

from socialgen.app.features import features
from socialgen.app.registration import Feature, resolve
from socialgen.http.operation_routes import operation_router


def include_routers(app: FastAPI, handed_in: Iterable[Feature] = ()) -> None:
    """Each feature's streamed operations (a route each, from its declaration), then
    its own routers."""
    for feature in features(handed_in):
        for target in feature.operations:
            app.include_router(operation_router(resolve(target)))
        for target in feature.routers:
            app.include_router(resolve(target))


@asynccontextmanager
async def lifespans(app: FastAPI, handed_in: Iterable[Feature] = ()) -> AsyncIterator[None]:
    """Every feature's lifespan work while the app serves, entered in the features'
    order and left in the reverse one."""
    async with AsyncExitStack() as stack:
        for feature in features(handed_in):
            for target in feature.lifespans:
                await stack.enter_async_context(resolve(target)(app))
        yield
