"""`socialgen carousel ...`: create, regenerate-slide, pdf, templates, list, show."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    command_group,
    console,
    current_runtime,
    emit,
)
from socialgen.files.backends import files_of
from socialgen.kit.limits import (
    DEFAULT_SLIDE_HEIGHT,
    DEFAULT_SLIDE_WIDTH,
    DEFAULT_SLIDES,
    SLIDE_INDEX,
    SLIDE_SIDE,
    SLIDES,
)

if TYPE_CHECKING:
    from socialgen.carousels.plan import Artwork
    from socialgen.carousels.uploads import CheckedImage

app = command_group()  # its help: the feature's Group (feature.py)

ReferenceOpt = Annotated[
    list[Path] | None,
    typer.Option("--reference-image", help="An image to guide the art (repeat, at most 5)."),
]


@app.command()
def create(
    prompt: Annotated[str, typer.Argument(help="What the carousel is about.")],
    handle: Annotated[
        str | None, typer.Option("--handle", help="Handle shown on the slides, e.g. @ada.")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", help='Your name on the slides (default: the `name` setting), e.g. "Ada".'
        ),
    ] = None,
    profile_image: Annotated[
        str | None, typer.Option("--profile-image", help="Your picture: a URL or a file.")
    ] = None,
    reference_image: ReferenceOpt = None,
    logo: Annotated[
        Path | None, typer.Option("--logo", help="A logo shown on every slide.")
    ] = None,
    template: Annotated[
        str | None, typer.Option("--template", help="Slide template (see `carousel templates`).")
    ] = None,
    style: Annotated[
        str | None, typer.Option("--style", help="Content style (name or id).")
    ] = None,
    slides: Annotated[
        int | None,
        typer.Option(
            "--slides", help=f"Number of slides, {SLIDES.describe()} (default {DEFAULT_SLIDES})."
        ),
    ] = None,
    open_pdf: Annotated[bool, typer.Option("--open", help="Open the PDF when done.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Plan the slides, make an image per slide, render the PDF and thumbnail."""
    from socialgen.app.caller import Caller
    from socialgen.carousels.body import CarouselBody
    from socialgen.carousels.events import CarouselComplete
    from socialgen.carousels.operations import CREATE_CAROUSEL
    from socialgen.carousels.plan import prepare_carousel
    from socialgen.carousels.render_cli import CarouselPrinter
    from socialgen.carousels.schemas import display_name
    from socialgen.cli.events import command_resources, stream_in_terminal
    from socialgen.cli.refs import resolve_in
    from socialgen.cli.support import open_workspace
    from socialgen.http.body_models import parse_json

    path_for_url = files_of(current_runtime()).path_for_url  # the command's file store

    request = parse_json(
        CarouselBody,
        {
            "prompt": prompt,
            "socialMediaHandle": handle,
            "userProfileImage": profile_image if _is_url(profile_image) else None,
            "template": template,
            "contentStyleId": style,
            "slideCount": slides,
        },
    ).request()
    author = (
        display_name(name, "--name")
        if name is not None
        else display_name(current_runtime().settings.name, "the name setting")
    )
    artwork = _artwork(profile_image, reference_image or [], logo)
    engine, workspace_id = open_workspace(workspace)
    if request.content_style_id is not None:  # a style name or id prefix: its whole id
        style_id = resolve_in(engine, workspace_id, "style", request.content_style_id)
        request = replace(request, content_style_id=style_id)
    plan = prepare_carousel(
        Caller(
            engine,
            workspace_id,
            None,
            current_runtime().settings,
            files=files_of(current_runtime()),
        ),
        request,
        artwork,
        display_name=author,
    )
    # The operation's run; its plan is the command's own (the author's --name).
    result = stream_in_terminal(
        CREATE_CAROUSEL.run(plan, command_resources()),
        json_output=json_output,
        printer=partial(CarouselPrinter, path_for_url=path_for_url),
        completed=CarouselComplete,
    )
    result.exit_if_failed()
    if open_pdf and result.completed is not None:
        pdf_path = path_for_url(result.completed.data.pdfUrl)
        if typer.launch(str(pdf_path)) != 0:  # e.g. no xdg-open on a server
            console(stderr=True).print(f"Could not open a PDF viewer; the PDF is {pdf_path}")


@app.command("regenerate-slide")
def regenerate_slide(
    carousel_id: Annotated[str, typer.Argument(help="Carousel name or id (6+ characters of it).")],
    index: Annotated[
        str, typer.Argument(help=f"Slide index, {SLIDE_INDEX.describe()}; 0 is the first slide.")
    ],
    prompt: Annotated[str, typer.Argument(help="What the new image shows.")],
    reference_image: ReferenceOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Replace one slide's image, then render the PDF and thumbnail again."""
    import asyncio

    from socialgen.app.caller import Caller
    from socialgen.carousels.body import RegenerateSlideBody
    from socialgen.carousels.regenerate import CarouselLocks
    from socialgen.carousels.regenerate import regenerate_slide as regenerate
    from socialgen.cli.refs import open_ref
    from socialgen.http.body_models import parse_fields

    path_for_url = files_of(current_runtime()).path_for_url  # the command's file store

    request = parse_fields(
        RegenerateSlideBody,
        {"carouselId": carousel_id, "slideIndex": _slide_index(index), "prompt": prompt},
        form=True,  # the index is text, as in a multipart form
    ).request()
    references = _references(reference_image or [])
    engine, workspace_id, whole_id = open_ref(workspace, "carousel", request.carousel_id)
    request = replace(request, carousel_id=whole_id)
    caller = Caller(
        engine, workspace_id, None, current_runtime().settings, files=files_of(current_runtime())
    )
    images = current_runtime().image_model()
    # One command, one regeneration: locks of its own (other processes are caught by
    # the saved-row check).
    cleanups = current_runtime().held.cleanups
    data = asyncio.run(regenerate(caller, request, references, images, CarouselLocks(), cleanups))

    def show(out: Any) -> None:
        out.print(f"slide {data.slideIndex}: {data.slide.title}")
        out.print(f"image:     {path_for_url(data.slide.image)}", soft_wrap=True)
        out.print(f"PDF:       {path_for_url(data.pdfUrl)}", soft_wrap=True)
        out.print(f"thumbnail: {path_for_url(data.thumbnailUrl)}", soft_wrap=True)

    emit(json_output, data.wire(), show)


@app.command()
def pdf(
    slides: Annotated[list[Path], typer.Argument(help="Slide HTML files, one page each.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The PDF to write.")],
    width: Annotated[
        int, typer.Option(help=f"Page width in CSS px, {SLIDE_SIDE.describe()}.")
    ] = DEFAULT_SLIDE_WIDTH,
    height: Annotated[
        int, typer.Option(help=f"Page height in CSS px, {SLIDE_SIDE.describe()}.")
    ] = DEFAULT_SLIDE_HEIGHT,
    json_output: JsonOpt = False,
) -> None:
    """Render slide HTML files to one vector PDF. Only data: URIs load (no files, no network)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.limits import MAX_SLIDE_HTML_BYTES
    from socialgen.kit.local_files import write_private_file
    from socialgen.render.checks import check_pdf_request

    if not output.parent.is_dir():
        raise BadRequest(f"Cannot write {output}: no such directory {output.parent}")
    pages = [_read_text(path, MAX_SLIDE_HTML_BYTES) for path in slides]
    check_pdf_request(pages, width, height)
    # WeasyPrint takes a second or two to import: only once the input is known good.
    from socialgen.render.pdf import html_to_pdf

    data = html_to_pdf(pages, width, height)
    try:
        write_private_file(output, data)  # 0600, as every export
    except OSError as error:
        raise BadRequest(f"Cannot write {output}: {error.strerror or error}") from None
    if json_output:
        emit(True, {"output": str(output), "pages": len(pages), "bytes": len(data)}, print)
    else:  # a note, as before: stdout stays free for pipes
        console(stderr=True).print(f"wrote {output} ({len(pages)} pages, {len(data):,} bytes)")


@app.command()
def templates(json_output: JsonOpt = False) -> None:
    """The built-in slide templates."""
    from socialgen.carousels.templates import list_templates

    records = [template.view() for template in list_templates()]

    def show(out: Any) -> None:
        from socialgen.cli.support import print_rows

        print_rows(
            out,
            "Templates",
            [
                {
                    "name": r.name,
                    "description": r.description,
                    "colours": f"{r.theme.primaryColor} on {r.theme.backgroundColor}",
                    "font": r.theme.font,
                }
                for r in records
            ],
        )

    emit(json_output, [record.wire() for record in records], show)


@app.command("list")
def list_(workspace: WorkspaceOpt = None, json_output: JsonOpt = False) -> None:
    """Carousels of the workspace, newest first."""
    from socialgen.carousels.repository import list_carousels
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_workspace, print_rows
    from socialgen.files.store import file_url
    from socialgen.kit.clock import iso

    engine, workspace_id = open_workspace(workspace)
    rows = [
        {
            "id": c.id,
            "name": c.name,
            "status": c.status,
            "template": c.template,
            "postId": c.post_id,
            "createdAt": iso(c.created_at),
            "pdfUrl": file_url(c.workspace_id, c.pdf_file),
        }
        for c in list_carousels(engine, workspace_id)
    ]
    short_ids = {
        "id": shortener(engine, "carousel", workspace_id),
        "postId": shortener(engine, "post", workspace_id),
    }
    emit(
        json_output,
        rows,
        lambda out: print_rows(
            out, "Carousels", rows, short_ids, empty='Make one: socialgen carousel create "TOPIC"'
        ),
    )


@app.command()
def show(
    carousel_id: Annotated[str, typer.Argument(help="Carousel name or id (6+ characters of it).")],
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A carousel, its slides and where its files are."""
    from socialgen.carousels.repository import load_carousel
    from socialgen.carousels.schemas import shown_carousel
    from socialgen.cli.refs import open_ref
    from socialgen.cli.support import print_rows

    path_for_url = files_of(current_runtime()).path_for_url  # the command's file store

    engine, workspace_id, carousel_id = open_ref(workspace, "carousel", carousel_id)
    record = load_carousel(engine, workspace_id, carousel_id)
    view = shown_carousel(record.carousel, record.slides)

    def render(out: Any) -> None:
        out.print(f"{view.name}  ({view.carouselId}, {view.status}, {view.template})")
        out.print(f"post:      {view.postId}")
        out.print(f"PDF:       {path_for_url(view.pdfUrl)}", soft_wrap=True)
        out.print(f"thumbnail: {path_for_url(view.thumbnailUrl)}", soft_wrap=True)
        print_rows(
            out,
            "Slides",
            [
                {
                    "index": s.slideIndex,
                    "title": s.title,
                    "content": s.content,
                    "image": str(path_for_url(s.image)),
                }
                for s in view.slides
            ],
        )

    emit(json_output, view.json_data(), render)


def _slide_index(text: str) -> str:
    """A digit string past SLIDE_INDEX is refused as out of range here; the request
    parser would only call a ten-digit index "not an integer"."""
    digits = text.strip()
    if digits.isascii() and digits.isdecimal():
        # int() refuses strings of more than 4300 digits: any long one is out of range.
        SLIDE_INDEX.check(int(digits) if len(digits) <= 100 else SLIDE_INDEX.high + 1)
    return text


def _is_url(value: str | None) -> bool:
    return value is not None and value.strip().lower().startswith(("http://", "https://"))


def _artwork(profile_image: str | None, references: list[Path], logo: Path | None) -> Artwork:
    """The user's images, checked by content; a profile URL is fetched (SSRF-guarded)."""
    import asyncio

    from socialgen.carousels.plan import Artwork
    from socialgen.carousels.uploads import fetch_profile_image, read_image_file

    profile: CheckedImage | None = None
    if profile_image is not None and profile_image.strip():
        if _is_url(profile_image):
            allow_private = current_runtime().settings.allow_private_urls
            profile = asyncio.run(
                fetch_profile_image(profile_image.strip(), allow_private=allow_private)
            )
        else:
            profile = read_image_file(Path(profile_image).expanduser(), "profile image")
    return Artwork(
        references=_references(references),
        logo=read_image_file(logo, "logo") if logo is not None else None,
        profile_image=profile,
    )


def _references(paths: list[Path]) -> list[CheckedImage]:
    from socialgen.carousels.uploads import read_image_file
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.limits import MAX_REFERENCE_IMAGES

    if len(paths) > MAX_REFERENCE_IMAGES:
        raise BadRequest(f"At most {MAX_REFERENCE_IMAGES} reference images are allowed")
    return [read_image_file(path, "reference image") for path in paths]


def _read_text(path: Path, limit: int) -> str:
    from socialgen.kit.local_files import read_regular_file
    from socialgen.kit.text_check import check_text

    data = read_regular_file(path, limit)

    text = data.decode("utf-8", "replace")
    check_text(text, str(path))  # a NUL would reach the renderer and the store
    return text
