"""The carousel endpoints (prefix /api/v1/carousel) but the streamed one,
generate-with-images, which operations.py declares."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import Response

from socialgen.app.caller import Caller
from socialgen.carousels.body import (
    PdfBody,
    RegenerateSlideBody,
    read_regenerate_body,
)
from socialgen.carousels.regenerate import CarouselLocks, regenerate_slide
from socialgen.carousels.templates import list_templates
from socialgen.files.backends import files_of
from socialgen.http.body_models import documented_body, parse_json
from socialgen.http.guard import AuthenticatedUser, WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap, json_object
from socialgen.http.support import (
    EngineDep,
    ImageModelDep,
    RuntimeDep,
    error_responses,
)
from socialgen.kit.limits import PDF_BODY, REGENERATE_SLIDE_BODY
from socialgen.kit.uploads import read_capped
from socialgen.store.tables import Role

router = APIRouter(prefix="/api/v1/carousel", tags=["carousels"])

SlideEditor = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]


async def carousel_locks(request: Request) -> CarouselLocks:
    """The app's carousel locks, made at its first regeneration. Async, so it runs on
    the event loop (one at a time): the locks are asyncio locks of that loop."""
    state = request.app.state
    locks: CarouselLocks | None = getattr(state, "carousel_locks", None)
    if locks is None:
        locks = state.carousel_locks = CarouselLocks()
    return locks


@router.post(
    "/regenerate-slide/{workspaceId}",
    openapi_extra=documented_body(RegenerateSlideBody, takes_files=True),
    responses=error_responses(400, 401, 403, 404, 409, 413, 502),
    dependencies=[body_cap(REGENERATE_SLIDE_BODY)],
)
async def regenerate(
    access: SlideEditor,
    engine: EngineDep,
    images: ImageModelDep,
    runtime: RuntimeDep,
    locks: Annotated[CarouselLocks, Depends(carousel_locks)],
    request: Request,
) -> dict[str, Any]:
    """A new image for one slide (slideIndex counts from 0); the PDF and thumbnail are
    rendered again. Answers the updated slide with the new pdfUrl and thumbnailUrl."""
    body = await read_regenerate_body(request)
    caller = Caller(
        engine=engine,
        workspace_id=access.workspace_id,
        user_id=access.user_id,
        settings=runtime.settings,
        files=files_of(runtime),
    )
    cleanups = runtime.held.cleanups
    data = await regenerate_slide(caller, body.request, body.references, images, locks, cleanups)
    return {"success": True, "data": data.wire()}


@router.post(
    "/generate-pdf",
    response_class=Response,
    openapi_extra=documented_body(PdfBody, takes_files=False),
    responses={
        200: {"content": {"application/pdf": {}}, "description": "The PDF"},
        **error_responses(400, 401, 413, 422, 503),
    },
    dependencies=[body_cap(PDF_BODY)],
)
async def generate_pdf(user: AuthenticatedUser, runtime: RuntimeDep, request: Request) -> Response:
    """A vector PDF, one page of width x height CSS px per slide. Only data: URIs load.
    503 with Retry-After when the renderer has no room (or the caller has its share)."""
    from socialgen.render.checks import check_pdf_request, render_caller
    from socialgen.render.client_gone import unless_client_leaves
    from socialgen.render.pool import RendererBusy

    raw = await read_capped(
        request.stream(), PDF_BODY.json_bytes, too_large=PDF_BODY.json_too_large
    )
    # Up to 16 MB of JSON: decoded and checked in a worker thread, not on the event loop.
    pages, width, height = await run_in_threadpool(_pdf_request, raw)
    check_pdf_request(pages, width, height)
    # Untrusted HTML: a worker process with a time limit, not this process; a client
    # that leaves takes its render with it (the worker is killed).
    render = runtime.render_pool().render(
        render_caller(user.user_id, user.workspace_id),
        pages,
        width,
        height,
        timeout=runtime.settings.pdf_timeout,
    )
    try:
        pdf = await unless_client_leaves(render, request.receive)
    except RendererBusy as busy:  # the error body as ever, plus the header
        raise HTTPException(
            busy.status_code, busy.message, headers={"Retry-After": str(busy.retry_after)}
        ) from None
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": 'inline; filename="carousel.pdf"'},
    )


@router.get("/templates")
def templates() -> dict[str, Any]:
    """The built-in slide templates (public): name, label, description, default theme."""
    return {"success": True, "data": [template.view().wire() for template in list_templates()]}


def _pdf_request(raw: bytes) -> tuple[list[str], int, int]:
    body = parse_json(PdfBody, json_object(raw))
    return body.slidesHtml, body.width, body.height
