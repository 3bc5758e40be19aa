"""The MCP tool that makes a carousel (create_carousel: its HTTP endpoint's plan and
stream run as one call) and the carousel's PDF as a resource. Registered by this
package's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from socialgen.carousels.body import SLIDE_COUNT, CarouselBody, JsonSlideCount, ProfileUrl
from socialgen.carousels.events import CarouselComplete, StoredCarousel
from socialgen.carousels.plan import Artwork, prepare_carousel
from socialgen.carousels.service import create_carousel
from socialgen.kit.limits import DEFAULT_SLIDES
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.resources import read_resource
from socialgen.mcp_server.running import run_stream
from socialgen.mcp_server.tooling import WRITES, add_tool, in_thread


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


def register(server: MCPServer[Any], face: Face) -> None:
    async def make_carousel(
        context: Context[Any, Any], request: CreateCarouselInput
    ) -> MadeCarousel:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        runtime = face.runtime(context)
        model = await in_thread(runtime.text_model)
        images = await in_thread(runtime.image_model)
        carousel = request.request()
        artwork = Artwork()
        if carousel.profile_image_url:
            from socialgen.carousels.uploads import fetch_profile_image

            picture = await fetch_profile_image(
                carousel.profile_image_url, allow_private=runtime.settings.allow_private_urls
            )
            artwork = Artwork(profile_image=picture)
        done = await run_stream(
            context,
            lambda who, body: prepare_carousel(who, body, artwork),
            who,
            carousel,
            lambda plan: create_carousel(plan, model, images, runtime.held.cleanups),
            CarouselComplete,
        )
        stored = done.data.model_dump()
        return MadeCarousel(**stored, pdfResource=carousel_pdf_uri(done.data.carouselId))

    add_tool(
        server, "create_carousel", CreateCarouselInput, make_carousel, MadeCarousel, WRITES,
        title="Make a carousel",
        description="A carousel of slides, an image each, rendered to a PDF (pdfResource is "
        "the PDF as a resource), saved with a draft post. Reports progress per slide.",
    )  # fmt: skip

    @server.resource(
        "socialgen://carousels/{carouselId}/pdf",
        name="carousel_pdf",
        title="A carousel's PDF",
        description="The PDF create_carousel rendered, one page per slide.",
        mime_type="application/pdf",
    )
    async def carousel_pdf(carouselId: str, context: Context[Any, Any]) -> bytes:
        def read() -> bytes:
            from socialgen.carousels.repository import load_carousel

            who = face.caller(context, None, KEY)
            record = load_carousel(who.engine, who.workspace_id, carouselId)
            return who.files.read(who.workspace_id, record.carousel.pdf_file)

        return await read_resource(read)
