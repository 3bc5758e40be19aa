"""What a command or a request runs with: the settings, the text model, the image model.

The CLI's root callback makes one per invocation (typer's `ctx.obj`); `serve` makes one
per process and hands it to `create_app(runtime)` (`app.state.runtime`, reached by
routes through `RuntimeDep`). A test builds one with the scripted model and hands it
in: `runner.invoke(app, args, obj=Runtime(text_model=scripted))`,
`create_app(Runtime(text_model=scripted))`; a test's own feature goes in the same way
(`Runtime(features=(TOY,))`).

The settings are read once, the first time something asks (so `socialgen --help` and a
quick listing never build them), and then kept: a server does not see a `config set`
or an edited config file until it restarts; a command sees them at its next run. A
command or request that overrides settings gets its own Runtime (`derived`), with its
own settings; the models handed in are kept, and so is what the Runtime holds (`Held`:
loaded text models, the PDF render pool), shared with the Runtime it came from.

It also owns the stores it opened (`open_store()`: an engine per database URL, migrated
once, and its quota lease, store/stores.py); `close()` disposes them and stops the render
pool. The CLI's root callback closes its Runtime when the command ends, the app's
lifespan when the server stops.

Nothing of this lives in a module: a test that wants a clean slate builds a fresh
Runtime (tests/test_no_process_state.py). Test networks come in the same way
(`Runtime(networks={"bluesky": scripted})`, read by `publishing.registry.Networks.of`),
never through the environment. Plans and services get the settings from here (through
`Caller.settings`, or as a parameter); nothing else reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from socialgen.kit.kept import KEPT_RANKERS, Kept

T = TypeVar("T")

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from sqlalchemy import Engine

    from socialgen.ai.image_types import ImageModel
    from socialgen.ai.model import TextModel
    from socialgen.app.registration import Feature
    from socialgen.config import Settings
    from socialgen.config.loading import AppSettings
    from socialgen.render.pool import RenderPool
    from socialgen.store.stores import Stores


class Held:
    """What a Runtime keeps for its life, shared with the Runtimes derived from it: the
    text models it built (a local one loads its GGUF once: one load per `serve`
    process), the PDF render pool (worker processes, made at the first render) and the
    cleanups that outlive a request whose client left (carousels.thread_work.finish:
    kept until they end, as an event loop keeps only weak references to tasks), the
    creators' trained rankers (insights/ranking.py's `Rankers`) and what the packages
    below keep by key through `keep` (the file stores: one bucket client per
    configuration, files.backends.files_of). It names nothing of those packages: they
    sit below the application and know their own types."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rankers: Kept[Any, Any] = Kept(KEPT_RANKERS)
        self.text_models: dict[tuple[Any, ...], TextModel] = {}
        self._kept: dict[tuple[Any, ...], object] = {}
        # Apart from `lock`, which a text model's build (a network probe) may hold.
        self._kept_lock = threading.Lock()
        self.render_pool: RenderPool | None = None
        self.cleanups: set[asyncio.Task[None]] = set()

    def keep(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """The value kept under `key`, made by `make` (under the lock: one per key) at
        the first call. A key starts with what it is for ("files", ...), so the caller
        that made a value is the one that reads it back, as the type it made."""
        with self._kept_lock:
            if key not in self._kept:
                self._kept[key] = make()
            return cast(T, self._kept[key])

    def close(self) -> None:
        """Stop the render pool's workers (a test's Runtime, when the test ends)."""
        with self.lock:
            pool, self.render_pool = self.render_pool, None
        if pool is not None:
            pool.close()


class Runtime:
    def __init__(
        self,
        *,
        options: Mapping[str, Any] | None = None,
        settings: AppSettings | None = None,
        text_model: TextModel | None = None,
        image_model: ImageModel | None = None,
        features: tuple[Feature, ...] = (),
        stores: Stores | None = None,
        networks: Mapping[str, object] | None = None,
        held: Held | None = None,
    ) -> None:
        # command-line options: they win (an unset option is None)
        self.options = {name: value for name, value in (options or {}).items() if value is not None}
        self._settings = settings
        self._store: Settings | None = None
        self.given_text_model = text_model
        self.given_image_model = image_model
        # Features beside those found under socialgen/ (a test's toy feature): the app
        # and the command line built on this Runtime add them (socialgen.app.features).
        self.features = features
        # Network modules beside (or instead of) the built-in ones: a test's scripted
        # network, under any lower-case name. The Runtime only carries them:
        # publishing.registry.Networks checks each is a network module when it is used
        # (a read-only view of this mapping, which the Runtime never changes).
        self.given_networks: Mapping[str, object] = {} if networks is None else networks
        self.held = held if held is not None else Held()
        self._image_model: ImageModel | None = None
        self._stores = stores  # made on first use; a derived Runtime shares its parent's
        self._stores_lock = threading.Lock()  # two threads' first use make one

    @property
    def settings(self) -> AppSettings:
        """Every setting, read at the first call and kept (config/loading.py)."""
        if self._settings is None:
            from socialgen.config.loading import load

            self._settings = load(self.options).settings
        return self._settings

    @property
    def store_settings(self) -> Settings:
        """Where the store is (home, database URL), read once without building the
        settings object: every command needs it first, and pydantic-settings costs
        ~0.1 s to import (config.get_settings: the same sources, in the same order)."""
        if self._store is None:
            from socialgen.config import get_settings

            self._store = get_settings()
        return self._store

    @property
    def models_dir(self) -> Path:
        """Where `models pull` puts GGUFs and `local/NAME` finds them: the home's
        models folder (ai/model_files.py), handed to whatever looks there."""
        from socialgen.ai.model_files import models_dir

        return models_dir(self.store_settings.home)

    def light_setting(self, name: str) -> Any:
        """One setting for a quick path (workspace, engine), without building the
        settings object unless it is already built or handed in: this Runtime's options,
        then the environment, the file, the default, as the settings object decides."""
        if self._settings is not None:
            return getattr(self._settings, name)
        from socialgen.config import light_setting

        return light_setting(name, self.options)

    @property
    def stores(self) -> Stores:
        """The engines this Runtime opened and its quota lease (made on first use)."""
        with self._stores_lock:
            if self._stores is None:
                from socialgen.store.stores import Stores

                self._stores = Stores(float(self.light_setting("quota_lease_seconds")))
            return self._stores

    def open_store(self) -> Engine:
        """The store the settings name, migrated and ready (startup.open_store): the
        same engine every time until `close()`."""
        from socialgen.app.startup import open_store

        return open_store(self.stores, self.store_settings)

    def close(self) -> None:
        """Dispose the engines, stop the lease keeper and the render pool's workers.
        Harmless when nothing was opened, and the Runtime stays usable: the next
        open_store() (or render) opens again."""
        if self._stores is not None:
            self._stores.close()
        self.held.close()

    def derived(self, **overrides: Any) -> Runtime:
        """A Runtime whose settings are these ones with `overrides` (None: unchanged),
        for a command or request that overrides some; the models handed in and the
        opened stores are shared."""
        overrides = {name: value for name, value in overrides.items() if value is not None}
        if self._settings is not None:
            settings: AppSettings | None = self._settings.model_copy(update=overrides)
            options = self.options
        else:
            settings, options = None, {**self.options, **overrides}
        return Runtime(
            options=options,
            settings=settings,
            text_model=self.given_text_model,
            image_model=self.given_image_model,
            features=self.features,
            stores=self.stores,  # the parent's close() closes them
            networks=self.given_networks,
            held=self.held,
        )

    def text_model(self) -> TextModel:
        """The model the settings name, built once for this Runtime and those derived
        from it (a derived Runtime naming another model gets that one)."""
        if self.given_text_model is not None:
            return self.given_text_model
        from socialgen.ai.registry import model_key, text_model

        key = model_key(self.settings, self.models_dir)
        with self.held.lock:
            model = self.held.text_models.get(key)
            if model is None:
                model = self.held.text_models[key] = text_model(self.settings, self.models_dir)
        return model

    def image_model(self) -> ImageModel:
        if self.given_image_model is not None:
            return self.given_image_model
        if self._image_model is None:
            from socialgen.ai.images import image_model

            self._image_model = image_model(self.settings)
        return self._image_model

    def render_pool(self) -> RenderPool:
        """The PDF render pool, sized by the settings at the first render, then kept."""
        from socialgen.render.pool import PoolSettings, RenderPool

        with self.held.lock:
            if self.held.render_pool is None:
                self.held.render_pool = RenderPool(PoolSettings.of(self.settings))
            return self.held.render_pool
