"""Slide images: the procedural painter (deterministic, fast, palette from references)
and the litellm gateway, exercised over real HTTP against the fake OpenAI server."""

from __future__ import annotations

import asyncio
import io
import itertools
import random
import time
from collections.abc import Iterator, Sequence

import pytest
from PIL import Image, ImageChops, ImageStat

from socialgen.ai import procedural
from socialgen.ai.images import (
    ImageModel,
    ImageResult,
    LiteLLMImageModel,
    image_model,
    provider_size,
)
from socialgen.ai.model import ModelError
from socialgen.ai.procedural import ProceduralImageModel, procedural_image, reference_colours
from socialgen.app.runtime import Runtime
from socialgen.sources.guard import ALLOW_PRIVATE_ENV
from tests.fakes.openai_server import FakeOpenAI, fake_image_png

# litellm 1.106 itself trips these (pydantic 2.11 deprecations).
pytestmark = pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince211")

PROMPT = "Why small teams ship weekly"
IMAGE_MODEL = "openai/gpt-image-1"  # any name but dall-e-*: litellm's gpt-image config


def decoded(result: ImageResult) -> Image.Image:
    image = Image.open(io.BytesIO(result.data))
    image.load()
    return image


def solid(colour: tuple[int, int, int], format_name: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 200), colour).save(out, format_name)
    return out.getvalue()


def mean_difference(a: ImageResult, b: ImageResult) -> float:
    channels = ImageStat.Stat(ImageChops.difference(decoded(a), decoded(b))).mean
    return sum(channels) / len(channels)


def generate(
    model: ImageModel, prompt: str = PROMPT, references: Sequence[bytes] = ()
) -> ImageResult:
    return asyncio.run(model.generate(prompt, width=1080, height=1350, references=references))


# -- procedural ------------------------------------------------------------------------------


def test_procedural_images_are_jpegs_of_the_asked_size() -> None:
    for width, height in [(1080, 1080), (1080, 1350), (1350, 1080), (7, 3), (1, 1)]:
        result = procedural_image(PROMPT, width, height)

        assert result.media_type == "image/jpeg"
        image = decoded(result)
        assert (image.format, image.size, image.mode) == ("JPEG", (width, height), "RGB")


def test_procedural_images_refuse_an_empty_size() -> None:
    with pytest.raises(ValueError, match="positive"):
        procedural_image(PROMPT, 0, 100)


def test_the_same_prompt_gives_the_same_bytes() -> None:
    first = procedural_image(PROMPT, 1080, 1350)

    assert procedural_image(PROMPT, 1080, 1350).data == first.data
    refs = [solid((250, 120, 0)), solid((0, 90, 200), "JPEG")]
    assert procedural_image(PROMPT, 640, 640, refs) == procedural_image(PROMPT, 640, 640, refs)


def test_different_prompts_give_visibly_different_images() -> None:
    prompts = [f"Slide {n}: {topic}" for n, topic in enumerate(["hiring", "pricing", "AI"])]
    prompts += [PROMPT, PROMPT + "!", "a", "b"]
    results = [procedural_image(prompt, 270, 270) for prompt in prompts]

    differences = [mean_difference(a, b) for a, b in itertools.combinations(results, 2)]

    # Mean per-channel difference on a 0-255 scale: far beyond JPEG noise (~1).
    assert min(differences) > 12


def _encode_noise(width: int, height: int) -> None:
    """The baseline: encode a width x height JPEG of noise, the least an image costs."""
    noise = Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3))
    noise.save(io.BytesIO(), "JPEG", quality=90)


def test_procedural_images_cost_about_one_jpeg_encode() -> None:
    """A slide image is drawn small and scaled up: about the cost of encoding one JPEG
    of its size (measured ~1.1x). A per-pixel loop or a full-size draw costs 10x more.
    A ratio against a baseline timed here, interleaved, so a busy machine slows both;
    the absolute figures are bench/carousel_images.py's."""
    procedural_image("warm-up", 1080, 1080)
    _encode_noise(1080, 1080)
    ours, baseline = [], []
    for n in range(5):
        start = time.perf_counter()
        procedural_image(f"{PROMPT} {n}", 1080, 1080)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        _encode_noise(1080, 1080)
        baseline.append(time.perf_counter() - start)

    assert min(ours) < 6 * min(baseline), (min(ours), min(baseline))


def test_reference_colours_are_their_dominant_colours() -> None:
    half = Image.new("RGB", (100, 100), (255, 0, 0))
    half.paste((0, 0, 255), (0, 0, 100, 30))  # 30 % blue, 70 % red
    out = io.BytesIO()
    half.save(out, "PNG")

    # Most common first; resizing adds a few blended pixels along the edge.
    assert reference_colours([out.getvalue()])[:2] == [(255, 0, 0), (0, 0, 255)]
    assert reference_colours([solid((0, 200, 0)), solid((0, 200, 0), "WEBP")])[0] == (0, 200, 0)
    assert reference_colours([b"not an image"]) == []  # skipped, not fatal


def test_a_model_reads_each_reference_once_and_owns_what_it_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads: list[bytes] = []
    read = procedural._read_dominant_colours
    monkeypatch.setattr(
        procedural, "_read_dominant_colours", lambda data: reads.append(data) or read(data)
    )
    red, blue = solid((255, 0, 0)), solid((0, 0, 255))
    model = ProceduralImageModel()

    for _ in range(3):  # a carousel's slides share the references
        reference_colours([red, blue], model.references)
    assert reads == [red, blue]

    # Another model (another Runtime's) starts with nothing read: no process-wide cache.
    reference_colours([red], ProceduralImageModel().references)
    assert reads == [red, blue, red]


def test_a_memo_keeps_its_newest_references_only() -> None:
    memo = procedural.ReferenceMemo(capacity=2)
    images = [solid((level, 0, 0)) for level in (10, 90, 200)]
    for image in images:
        memo.dominant_colours(image)

    assert [colour for colour, _ in memo.dominant_colours(images[2])] == [(200, 0, 0)]
    assert len(memo._colours) == 2  # the oldest went


def test_references_pull_the_palette_towards_their_colours() -> None:
    plain = decoded(procedural_image(PROMPT, 300, 300))
    reddened = decoded(procedural_image(PROMPT, 300, 300, [solid((255, 0, 0))] * 3))
    greened = decoded(procedural_image(PROMPT, 300, 300, [solid((0, 255, 0), "JPEG")]))

    red, green, blue = ImageStat.Stat(reddened).mean
    assert red > green + 60 and red > blue + 60
    red, green, blue = ImageStat.Stat(greened).mean
    assert green > red + 60 and green > blue + 60
    assert ImageStat.Stat(plain).mean != ImageStat.Stat(reddened).mean


def test_the_procedural_model_paints_in_a_thread() -> None:
    model = ProceduralImageModel()

    result = generate(model)

    assert result == procedural_image(PROMPT, 1080, 1350)


# -- which model ---------------------------------------------------------------------------


def test_without_an_image_model_images_are_procedural(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOCIALGEN_IMAGE_MODEL", raising=False)
    assert isinstance(image_model(Runtime().settings), ProceduralImageModel)

    monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", "   ")
    assert isinstance(image_model(Runtime().settings), ProceduralImageModel)


def test_the_image_model_and_its_base_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", " openai/gpt-image-1 ")
    monkeypatch.setenv("SOCIALGEN_API_BASE", "http://text.example/v1")
    monkeypatch.delenv("SOCIALGEN_IMAGE_API_BASE", raising=False)
    monkeypatch.setenv("SOCIALGEN_TIMEOUT", "42")

    model = image_model(Runtime().settings)
    assert isinstance(model, LiteLLMImageModel)
    assert (model.name, model.api_base, model.timeout) == (
        "openai/gpt-image-1",
        "http://text.example/v1",
        42.0,
    )

    monkeypatch.setenv("SOCIALGEN_IMAGE_API_BASE", "http://images.example/v1")
    model = image_model(Runtime().settings)
    assert isinstance(model, LiteLLMImageModel)
    assert model.api_base == "http://images.example/v1"


@pytest.mark.parametrize(
    ("width", "height", "size"),
    [
        (1080, 1080, "1024x1024"),
        (1080, 1350, "1024x1536"),  # 4:5 is nearer 2:3 than 1:1
        (1350, 1080, "1536x1024"),
        (1000, 900, "1024x1024"),
        (1920, 1080, "1536x1024"),
    ],
)
def test_sizes_snap_to_what_providers_accept(width: int, height: int, size: str) -> None:
    assert provider_size(width, height) == size


# -- litellm, over HTTP, against the fake server --------------------------------------------


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", IMAGE_MODEL)
        monkeypatch.delenv("SOCIALGEN_IMAGE_API_BASE", raising=False)
        monkeypatch.setenv("SOCIALGEN_TIMEOUT", "10")
        yield server


def test_litellm_generates_over_http(fake: FakeOpenAI) -> None:
    result = generate(image_model(Runtime().settings))

    assert result == ImageResult(fake_image_png(PROMPT, "1024x1536"), "image/png")
    (request,) = fake.image_requests
    assert request.endpoint == "generations"
    # response_format is left out: gpt-image models refuse it (litellm drops it).
    assert request.body == {"model": "gpt-image-1", "prompt": PROMPT, "n": 1, "size": "1024x1536"}
    assert request.headers["authorization"] == "Bearer sk-fake"
    assert fake.requests == []  # no chat completion on the way


def test_dall_e_models_are_asked_for_base64(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", "openai/dall-e-3")

    generate(image_model(Runtime().settings))

    assert fake.image_requests[0].body["response_format"] == "b64_json"


def test_references_go_to_the_edits_endpoint(fake: FakeOpenAI) -> None:
    refs = [solid((255, 0, 0)), solid((0, 0, 255), "JPEG")]

    result = generate(image_model(Runtime().settings), references=refs)

    assert result.data == fake_image_png(PROMPT, "1024x1536")
    (request,) = fake.image_requests
    assert request.endpoint == "edits"
    assert request.body == {"model": "gpt-image-1", "prompt": PROMPT, "n": "1", "size": "1024x1536"}
    assert [(f.field, f.data) for f in request.files] == [("image[]", ref) for ref in refs]
    assert [f.content_type for f in request.files] == ["image/png", "image/jpeg"]


def test_without_edits_the_prompt_alone_is_used(fake: FakeOpenAI) -> None:
    fake.image_edit_status = 404  # an OpenAI-compatible server without /images/edits

    result = generate(image_model(Runtime().settings), references=[solid((255, 0, 0))])

    assert result.data == fake_image_png(PROMPT, "1024x1536")
    assert [r.endpoint for r in fake.image_requests] == ["edits", "generations"]


def test_a_provider_without_images_at_all_says_so(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # litellm refuses the edit before any request ("image edit is not supported for
    # anthropic", as an APIConnectionError): that is a fall back to the prompt alone,
    # for which litellm answers an empty list, again without any request.
    monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", "anthropic/claude-x")

    with pytest.raises(ModelError) as caught:
        generate(image_model(Runtime().settings), references=[solid((255, 0, 0))])

    assert caught.value.message == (
        "The AI provider answered without an image (is anthropic/claude-x an image model?)"
    )
    assert fake.image_requests == []


def test_a_provider_error_is_a_model_error(fake: FakeOpenAI) -> None:
    fake.image_status = 400

    with pytest.raises(ModelError) as caught:
        generate(image_model(Runtime().settings))

    assert caught.value.status_code == 502
    message = caught.value.message
    assert message.startswith("The AI provider failed to make an image: BadRequestError")
    assert "Fake images error 400" in message
    assert "Traceback" not in message and "\n" not in message


def test_an_edit_that_fails_for_another_reason_does_not_fall_back(fake: FakeOpenAI) -> None:
    fake.image_status = 401

    with pytest.raises(ModelError, match="AuthenticationError"):
        generate(image_model(Runtime().settings), references=[solid((255, 0, 0))])

    assert [r.endpoint for r in fake.image_requests] == ["edits"]


def test_junk_instead_of_an_image_is_a_model_error(fake: FakeOpenAI) -> None:
    fake.image_answer = "junk"

    with pytest.raises(ModelError) as caught:
        generate(image_model(Runtime().settings))

    assert caught.value.message == (
        "The AI provider sent an unusable image: "
        "the generated image is not a PNG, JPEG, WebP or GIF image"
    )


def test_an_image_given_as_a_link_is_fetched_through_the_guard(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.image_answer = "url"
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")  # the fake lives on 127.0.0.1

    assert generate(image_model(Runtime().settings)).data == fake_image_png(PROMPT, "1024x1536")

    monkeypatch.delenv(ALLOW_PRIVATE_ENV)
    with pytest.raises(ModelError) as caught:
        generate(image_model(Runtime().settings))
    assert caught.value.message.startswith(
        "The AI provider's image could not be downloaded: URL not allowed"
    )
