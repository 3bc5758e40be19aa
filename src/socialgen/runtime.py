"""What a command or a request runs with: the settings, the text model, the image model.

The CLI's root callback makes one per invocation (typer's `ctx.obj`); the app factory
makes one per app (`app.state.runtime`, reached by routes through `RuntimeDep`). Each
part is made on first use, so `socialgen config list` never loads a model and
`socialgen posts --help` imports nothing heavy. A test builds one with the scripted
model and hands it in: `runner.invoke(app, args, obj=Runtime(text_model=scripted))`,
`create_app(runtime=Runtime(text_model=scripted))`.

A part that was not handed in follows the settings as they are now: a server sees a
`config set model ...` at its next request (the model registry caches per setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from socialgen.ai.image_types import ImageModel
    from socialgen.ai.model import TextModel
    from socialgen.config.loading import AppSettings


class Runtime:
    def __init__(
        self,
        *,
        options: Mapping[str, Any] | None = None,
        settings: AppSettings | None = None,
        text_model: TextModel | None = None,
        image_model: ImageModel | None = None,
    ) -> None:
        self.options = dict(options or {})  # command-line options: they win
        self.given_settings = settings
        self.given_text_model = text_model
        self.given_image_model = image_model

    @property
    def settings(self) -> AppSettings:
        if self.given_settings is not None:
            return self.given_settings
        from socialgen.config.loading import current_settings

        return current_settings(**self.options)

    def text_model(self) -> TextModel:
        if self.given_text_model is not None:
            return self.given_text_model
        from socialgen.ai.registry import text_model

        return text_model()

    def image_model(self) -> ImageModel:
        if self.given_image_model is not None:
            return self.given_image_model
        from socialgen.ai.images import image_model

        return image_model()
