"""The image gateway: a prompt (and maybe reference images) in, one image out.

SOCIALGEN_IMAGE_MODEL names a litellm image model (e.g. `openai/gpt-image-1`,
reached through SOCIALGEN_IMAGE_API_BASE or else SOCIALGEN_API_BASE); unset, images
are painted locally by `ProceduralImageModel` (no network, deterministic).
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from socialgen.ai.image_types import ImageModel as ImageModel  # re-exported for callers
from socialgen.ai.image_types import ImageResult as ImageResult
from socialgen.ai.model import ModelError
from socialgen.ai.remote import describe_error, load_litellm, stored_api_key
from socialgen.ai.settings import ai_settings
from socialgen.images.check import CheckedImage, check_image
from socialgen.kit.errors import BadRequest, SocialgenError
from socialgen.kit.limits import MAX_IMAGE_BYTES, MAX_REFERENCE_IMAGES
from socialgen.sources.fetch import fetch

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

logger = logging.getLogger("socialgen.ai")

# The sizes OpenAI's image models accept (gpt-image-*; dall-e-3 has its own, close
# ones); other providers take the nearest they have or ignore the size.
PROVIDER_SIZES = ((1024, 1024), (1024, 1536), (1536, 1024))
# An edit refused with one of these (or a "not supported" message) means the
# provider or model has no edits: the prompt alone is tried next.
EDIT_UNSUPPORTED_STATUSES = frozenset({400, 404, 405, 415, 422, 501})
GENERATED = "the generated image"


def image_model(configured: AppSettings) -> ImageModel:
    """The image model the settings ask for (a Runtime's)."""
    name = (configured.image_model or "").strip()
    if not name:
        # Imported on use: it loads Pillow's drawing code, which a configured
        # provider never needs.
        from socialgen.ai.procedural import ProceduralImageModel

        return ProceduralImageModel()
    settings = ai_settings(configured)
    api_base = (configured.image_api_base or "").strip() or settings.api_base
    return LiteLLMImageModel(
        name,
        api_base=api_base,
        timeout=settings.timeout,
        allow_private=configured.allow_private_urls,
    )


def provider_size(width: int, height: int) -> str:
    """The accepted size whose aspect ratio is nearest to width x height."""
    wanted = math.log(max(width, 1) / max(height, 1))
    best = min(PROVIDER_SIZES, key=lambda size: abs(math.log(size[0] / size[1]) - wanted))
    return f"{best[0]}x{best[1]}"


class LiteLLMImageModel:
    """Any image model litellm knows; litellm is imported on first use.

    Unlike chat completions, litellm gives no way to turn off the OpenAI client's own
    retries for image generation (max_retries is not passed on): a 429 or 5xx is
    tried 3 times (~1.5 s of back-off) before it fails. Edits make one attempt.
    """

    def __init__(
        self, name: str, *, api_base: str | None, timeout: float, allow_private: bool = False
    ) -> None:
        self.name = name
        self.api_base = api_base
        self.timeout = timeout
        # The allow_private_urls setting, for a provider that answers with a link.
        self.allow_private = allow_private

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        litellm = load_litellm()
        options: dict[str, Any] = {
            "model": self.name,
            "prompt": prompt,
            "n": 1,
            "size": provider_size(width, height),
            "timeout": self.timeout,
        }
        if self.api_base:
            options["api_base"] = self.api_base
        if api_key := stored_api_key(litellm, self.name):
            options["api_key"] = api_key
        extra: dict[str, Any] = {}
        if "dall-e" in self.name:
            # DALL-E answers a URL that expires unless asked for base64. litellm >= 1.110
            # maps every OpenAI image model as gpt-image (which refuses the parameter) and
            # drops it, so for DALL-E it goes in the body itself.
            extra["extra_body"] = {"response_format": "b64_json"}
        response: Any = None
        if references:
            response = await self._edit(litellm, options, references[:MAX_REFERENCE_IMAGES])
        if response is None:
            try:
                # gpt-image-* always answer base64 and refuse `response_format`;
                # drop_params lets litellm leave it out for the models that refuse it.
                response = await litellm.aimage_generation(
                    **options, **extra, response_format="b64_json", drop_params=True
                )
            except Exception as error:  # litellm maps every provider failure to its own classes
                raise ModelError(
                    f"The AI provider failed to make an image: {_short(error, options)}"
                ) from error
        return await self._result(response)

    async def _edit(
        self, litellm: Any, options: dict[str, Any], references: Sequence[bytes]
    ) -> Any:
        """The references as input images (OpenAI's /images/edits), or None when the
        provider or model cannot take them."""
        images = [io.BytesIO(data) for data in references]
        try:
            return await litellm.aimage_edit(image=images, **options)
        except Exception as error:
            if not _edit_unsupported(error):
                raise ModelError(
                    f"The AI provider failed to make an image: {_short(error, options)}"
                ) from error
            logger.info(
                "%s takes no reference images (%s): prompt only", self.name, _short(error, options)
            )
            return None

    async def _result(self, response: Any) -> ImageResult:
        items = list(getattr(response, "data", None) or [])
        encoded = _field(items[0], "b64_json") if items else None
        url = _field(items[0], "url") if items else None
        if encoded:
            data = _decode(encoded)
        elif url:
            data = await self._download(url)
        else:
            # litellm answers an empty list, without a request, for providers it
            # has no image generation for (anthropic/, ollama/ ...).
            raise ModelError(
                f"The AI provider answered without an image (is {self.name} an image model?)"
            )
        try:
            return _as_result(check_image(data, GENERATED))
        except BadRequest as error:
            raise ModelError(f"The AI provider sent an unusable image: {error.message}") from None

    async def _download(self, url: str) -> bytes:
        """A provider that answers with a link: data: decoded here, http(s) fetched
        through the guard like any outside URL (a link is not trusted for being ours)."""
        if url.startswith("data:"):
            return _decode(url)
        try:
            page = await fetch(
                url,
                max_bytes=MAX_IMAGE_BYTES,
                timeout=self.timeout,
                accept="image/*",
                allow_private=self.allow_private,
            )
        except SocialgenError as error:
            raise ModelError(
                f"The AI provider's image could not be downloaded: {error.message}"
            ) from None
        return page.body


def _edit_unsupported(error: Exception) -> bool:
    if isinstance(error, NotImplementedError):
        return True
    if getattr(error, "status_code", None) in EDIT_UNSUPPORTED_STATUSES:
        return True
    # litellm raises "image edit is not supported for <provider>" as an
    # APIConnectionError (status 500), and UnsupportedParamsError for parameters.
    text = str(error).lower()
    return "not supported" in text or "unsupported" in text or "not implemented" in text


def _field(item: Any, name: str) -> str | None:
    value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
    return value if isinstance(value, str) and value else None


def _decode(encoded: str) -> bytes:
    """Base64 image bytes, plain or as a data: URI."""
    if encoded.startswith("data:"):
        encoded = encoded.partition(",")[2]
    try:
        return base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        raise ModelError("The AI provider sent an image that is not valid base64") from None


def _as_result(image: CheckedImage) -> ImageResult:
    """PNG, JPEG and WebP as they are; a GIF (rare) becomes a PNG of its first frame."""
    if image.media_type != "image/gif":
        return ImageResult(data=image.data, media_type=image.media_type)
    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(image.data)) as gif:
        gif.convert("RGBA").save(out, "PNG")
    return ImageResult(data=out.getvalue(), media_type="image/png")


def _short(error: Exception, options: dict[str, Any]) -> str:
    """remote.py's one-line description, without the traceback litellm sometimes
    puts in the message of its own errors, nor a stored key a provider echoed."""
    text = describe_error(error).split(" Traceback (most recent call last)", 1)[0]
    api_key = options.get("api_key")
    return text.replace(api_key, "[stored key]") if api_key else text
