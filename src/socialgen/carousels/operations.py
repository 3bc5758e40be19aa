"""A carousel made with images, declared once: served by the API (POST
/api/v1/carousel/generate-with-images/{workspaceId}, a stream of {type, data}), MCP
(create_carousel) and the command line (cli.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from socialgen.app.caller import Caller
from socialgen.app.operations import AsTool, OverHttp, StreamedOperation
from socialgen.carousels.body import (
    SLIDE_COUNT,
    CarouselBody,
    CreateBody,
    JsonSlideCount,
    ProfileUrl,
    read_create_body,
)
from socialgen.carousels.events import CarouselComplete, StoredCarousel
from socialgen.carousels.plan import Artwork, CarouselPlan, prepare_carousel
from socialgen.carousels.service import create_carousel
from socialgen.kit.limits import CAROUSEL_BODY, DEFAULT_SLIDES
from socialgen.mcp_server.inputs import InWorkspace


def carousel_pdf_uri(carousel_id: str) -> str:
    return f"socialgen://carousels/{carousel_id}/pdf"


class CreateCarouselInput(CarouselBody, InWorkspace):
    """generate-with-images' JSON body (images by URL only): the same model reads it."""

    slideCount: JsonSlideCount = Field(default=DEFAULT_SLIDES, description=SLIDE_COUNT)
    userProfileImage: ProfileUrl = Field(
        default=None, description="URL of the author's picture (public http(s))."
    )
    brandLogo: SkipJsonSchema[None] = None  # form files: no tool arguments
    referenceImages: SkipJsonSchema[None] = None


class MadeCarousel(StoredCarousel):
    pdfResource: str = Field(
        description="The PDF as an MCP resource (read it with resources/read)."
    )


async def _read_form(request: Any, runtime: Any) -> CreateBody:
    return await read_create_body(request, allow_private=runtime.settings.allow_private_urls)


async def _from_arguments(arguments: CreateCarouselInput, runtime: Any) -> CreateBody:
    """The tool's arguments as the form's body: a profile picture by URL is fetched."""
    carousel = arguments.request()
    artwork = Artwork()
    if carousel.profile_image_url:
        from socialgen.carousels.uploads import fetch_profile_image

        picture = await fetch_profile_image(
            carousel.profile_image_url, allow_private=runtime.settings.allow_private_urls
        )
        artwork = Artwork(profile_image=picture)
    return CreateBody(request=carousel, artwork=artwork)


def _prepare(caller: Caller, body: CreateBody) -> CarouselPlan:
    return prepare_carousel(caller, body.request, body.artwork)


def _made(done: CarouselComplete, _who: Caller) -> MadeCarousel:
    stored = done.data.model_dump()
    return MadeCarousel(**stored, pdfResource=carousel_pdf_uri(done.data.carouselId))


CREATE_CAROUSEL = StreamedOperation(
    prepare=_prepare,
    run=lambda plan, using: create_carousel(plan, using.text(), using.images(), using.cleanups),
    completed=(CarouselComplete,),
    uses_images=True,
    http=OverHttp(
        name="generate_with_images",
        path="/api/v1/carousel/generate-with-images/{workspaceId}",
        tag="carousels",
        doc="A carousel with an AI image per slide, streamed as JSON events {type, data}: "
        "plan_generated, image_generated (per slide), generating_pdf, complete.",
        stream_doc="Stream of {type, data}",
        read=_read_form,
        documented=CarouselBody,
        takes_files=True,
        cap=CAROUSEL_BODY,
        errors=(400, 401, 403, 404, 413),
        typed=True,
    ),
    tool=AsTool(
        name="create_carousel",
        title="Make a carousel",
        description="A carousel of slides, an image each, rendered to a PDF (pdfResource is "
        "the PDF as a resource), saved with a draft post. Reports progress per slide.",
        arguments=CreateCarouselInput,
        result=MadeCarousel,
        request=_from_arguments,
        answer=_made,
    ),
)
