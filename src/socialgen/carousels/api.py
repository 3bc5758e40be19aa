"""The carousel endpoints (prefix /api/v1/carousel)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from socialgen.api_support import EngineDep, ImageModelDep, TextModelDep, error_responses
from socialgen.auth.api import AuthenticatedUser, WorkspaceAccess, WorkspaceGuard
from socialgen.carousels.body import read_create_body, read_regenerate_body
from socialgen.carousels.plan import prepare_carousel
from socialgen.carousels.regenerate import regenerate_slide
from socialgen.carousels.requests import whole_number
from socialgen.carousels.service import create_carousel
from socialgen.carousels.templates import list_templates
from socialgen.drafting.caller import Caller
from socialgen.errors import BadRequest
from socialgen.limits import DEFAULT_SLIDE_HEIGHT, DEFAULT_SLIDE_WIDTH, MAX_SLIDES_HTML_BYTES
from socialgen.request_body import json_object
from socialgen.store.tables import Role
from socialgen.streaming import sse_response
from socialgen.uploads import read_capped

router = APIRouter(prefix="/api/v1/carousel", tags=["carousels"])

CarouselCaller = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
SlideEditor = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
PDF_BODY_OVERHEAD = 64 * 1024

_IMAGE_FIELDS: dict[str, Any] = {
    "referenceImages": {
        "type": "array",
        "items": {"type": "string", "format": "binary"},
        "maxItems": 5,
    },
}
_CREATE_BODY: dict[str, Any] = {
    "requestBody": {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["prompt"],
                    "properties": {
                        "prompt": {"type": "string"},
                        "userProfileImage": {"type": "string", "format": "uri"},
                        "socialMediaHandle": {"type": "string"},
                        "template": {"type": "string"},
                        "contentStyleId": {"type": "string"},
                        "slideCount": {"type": "integer", "minimum": 2, "maximum": 12},
                    },
                }
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["prompt"],
                    "properties": {
                        "prompt": {"type": "string"},
                        "userProfileImage": {"type": "string"},
                        "socialMediaHandle": {"type": "string"},
                        "template": {"type": "string"},
                        "contentStyleId": {"type": "string"},
                        "slideCount": {"type": "integer"},
                        "brandLogo": {"type": "string", "format": "binary"},
                        **_IMAGE_FIELDS,
                    },
                }
            },
        }
    }
}
_REGENERATE_BODY: dict[str, Any] = {
    "requestBody": {
        "content": {
            media: {
                "schema": {
                    "type": "object",
                    "required": ["carouselId", "slideIndex", "prompt"],
                    "properties": {
                        "carouselId": {"type": "string"},
                        "slideIndex": {"type": "integer", "minimum": 0},
                        "prompt": {"type": "string"},
                        **(_IMAGE_FIELDS if media.startswith("multipart") else {}),
                    },
                }
            }
            for media in ("application/json", "multipart/form-data")
        }
    }
}
_PDF_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["slidesHtml"],
                    "properties": {
                        "slidesHtml": {"type": "array", "items": {"type": "string"}},
                        "width": {"type": "integer", "default": DEFAULT_SLIDE_WIDTH},
                        "height": {"type": "integer", "default": DEFAULT_SLIDE_HEIGHT},
                    },
                }
            }
        },
    }
}


@router.post(
    "/generate-with-images/{workspaceId}",
    response_class=StreamingResponse,
    openapi_extra=_CREATE_BODY,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Stream of {type, data}"},
        **error_responses(400, 401, 403, 404, 413),
    },
)
async def generate_with_images(
    access: CarouselCaller,
    engine: EngineDep,
    model: TextModelDep,
    images: ImageModelDep,
    request: Request,
) -> StreamingResponse:
    """A carousel with an AI image per slide, streamed as JSON events {type, data}:
    plan_generated, image_generated (per slide), generating_pdf, complete."""
    body = await read_create_body(request)
    caller = Caller(engine=engine, workspace_id=access.workspace_id, user_id=access.user_id)
    plan = await run_in_threadpool(prepare_carousel, caller, body.request, body.artwork)
    return sse_response(create_carousel(plan, model, images), typed=True)


@router.post(
    "/regenerate-slide/{workspaceId}",
    openapi_extra=_REGENERATE_BODY,
    responses=error_responses(400, 401, 403, 404, 409, 413, 502),
)
async def regenerate(
    access: SlideEditor, engine: EngineDep, images: ImageModelDep, request: Request
) -> dict[str, Any]:
    """A new image for one slide (slideIndex counts from 0); the PDF and thumbnail are
    rendered again. Answers the updated slide with the new pdfUrl and thumbnailUrl."""
    body = await read_regenerate_body(request)
    caller = Caller(engine=engine, workspace_id=access.workspace_id, user_id=access.user_id)
    data = await regenerate_slide(caller, body.request, body.references, images)
    return {"success": True, "data": data}


@router.post(
    "/generate-pdf",
    response_class=Response,
    openapi_extra=_PDF_BODY,
    responses={
        200: {"content": {"application/pdf": {}}, "description": "The PDF"},
        **error_responses(400, 401, 413),
    },
)
async def generate_pdf(_user: AuthenticatedUser, request: Request) -> Response:
    """A vector PDF, one page of width x height CSS px per slide. Only data: URIs load."""
    from socialgen.render.checks import check_pdf_request
    from socialgen.render.isolated import html_to_pdf_isolated

    raw = await read_capped(
        request.stream(),
        MAX_SLIDES_HTML_BYTES + PDF_BODY_OVERHEAD,
        too_large=f"The body is larger than {MAX_SLIDES_HTML_BYTES // (1024 * 1024)} MB",
    )
    pages, width, height = _pdf_request(raw)
    check_pdf_request(pages, width, height)
    # Untrusted HTML: a worker process with a time limit, not this process.
    pdf = await run_in_threadpool(html_to_pdf_isolated, pages, width, height)
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": 'inline; filename="carousel.pdf"'},
    )


@router.get("/templates")
def templates() -> dict[str, Any]:
    """The built-in slide templates (public): name, label, description, default theme."""
    return {"success": True, "data": [template.as_dict() for template in list_templates()]}


def _pdf_request(raw: bytes) -> tuple[list[str], int, int]:
    fields = json_object(raw)
    pages = fields.get("slidesHtml")
    if not isinstance(pages, list) or not all(isinstance(page, str) for page in pages):
        raise BadRequest("slidesHtml is required: an array of HTML strings, one per slide")
    width = fields.get("width")
    height = fields.get("height")
    return (
        pages,
        DEFAULT_SLIDE_WIDTH if width is None else whole_number(width, "width"),
        DEFAULT_SLIDE_HEIGHT if height is None else whole_number(height, "height"),
    )
