"""The request bodies read by hand (carousels, calendar) are described by pydantic
models: the OpenAPI document shows their schemas, and a multipart form takes exactly
the fields its form model lists."""

from __future__ import annotations

from typing import get_args

from socialgen.carousels.body import CREATE_FORM, REGENERATE_FORM
from socialgen.carousels.schemas import (
    CarouselFormBody,
    CarouselJsonBody,
    PdfBody,
    RegenerateSlideFormBody,
    RegenerateSlideJsonBody,
)
from socialgen.content_calendar.body import CALENDAR_FORM, CalendarBody, CalendarDays
from socialgen.limits import CALENDAR_LENGTHS
from socialgen.request_body import documented_body, openapi_body
from socialgen.server import create_app


def test_each_form_takes_the_fields_it_always_took() -> None:
    assert CREATE_FORM.expected() == {
        "prompt",
        "socialMediaHandle",
        "template",
        "contentStyleId",
        "slideCount",
        "userProfileImage",
        "brandLogo",
        "referenceImages",
    }
    assert CREATE_FORM.file_fields == {"referenceImages", "brandLogo", "userProfileImage"}
    assert REGENERATE_FORM.expected() == {"carouselId", "slideIndex", "prompt", "referenceImages"}
    assert REGENERATE_FORM.text_fields == {"carouselId", "slideIndex", "prompt"}
    assert CALENDAR_FORM.text_fields == {"calendarLength", "prompt", "youtubeUrl", "contentStyleId"}
    assert CALENDAR_FORM.expected() == CALENDAR_FORM.text_fields | {"pdf", "articleUrls"}


def test_the_calendar_lengths_are_the_limits() -> None:
    assert get_args(CalendarDays) == CALENDAR_LENGTHS


def test_the_document_shows_the_models_bodies() -> None:
    paths = create_app().openapi()["paths"]
    for path, body in [
        (
            "/api/v1/carousel/generate-with-images/{workspaceId}",
            openapi_body(CarouselJsonBody, CarouselFormBody),
        ),
        (
            "/api/v1/carousel/regenerate-slide/{workspaceId}",
            openapi_body(RegenerateSlideJsonBody, RegenerateSlideFormBody),
        ),
        ("/api/v1/carousel/generate-pdf", openapi_body(PdfBody)),
        (
            "/api/v1/content-calendar/generate/{workspaceId}",
            documented_body(CalendarBody, takes_files=True),
        ),
    ]:
        shown = paths[path]["post"]["requestBody"]
        assert shown["required"] is True
        for media, content in body["requestBody"]["content"].items():
            expected = content["schema"]
            # FastAPI leaves None out of the document: a null default is not shown.
            properties = {
                name: {k: v for k, v in field.items() if not (k == "default" and v is None)}
                for name, field in expected["properties"].items()
            }
            assert shown["content"][media]["schema"] == {**expected, "properties": properties}
    pdf = paths["/api/v1/carousel/generate-pdf"]["post"]["requestBody"]["content"]
    assert list(pdf) == ["application/json"]  # generate-pdf takes no form


def test_a_command_that_imports_the_schemas_does_not_build_the_body_models() -> None:
    """They only describe: pydantic builds them for the OpenAPI document, not when the
    CLI imports its request shapes."""
    import subprocess
    import sys

    probe = (
        "import socialgen.carousels.schemas as c;"
        "print(any(m.__pydantic_complete__ for m in (c.CarouselJsonBody, c.CarouselFormBody,"
        " c.RegenerateSlideJsonBody, c.RegenerateSlideFormBody, c.PdfBody)))"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert shown.stdout.strip() == "False", shown.stderr
