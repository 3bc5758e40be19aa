"""One pydantic model per request body that the endpoint reads itself (carousels,
calendar, generate-pdf): it parses the JSON object and the form alike, the OpenAPI
document shows its schema, and a multipart form takes exactly the fields it lists."""

from __future__ import annotations

from typing import get_args

import pytest

from socialgen.app.runtime import Runtime
from socialgen.carousels.body import (
    CREATE_FORM,
    REGENERATE_FORM,
    CarouselBody,
    PdfBody,
    RegenerateSlideBody,
)
from socialgen.content_calendar.body import CALENDAR_FORM, CalendarBody, CalendarDays
from socialgen.http.body_models import body_schema, documented_body, parse_form, parse_json
from socialgen.http.form_parts import RequestBody
from socialgen.http.server import create_app
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import CALENDAR_LENGTHS


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
    paths = create_app(Runtime()).openapi()["paths"]
    for path, body in [
        (
            "/api/v1/carousel/generate-with-images/{workspaceId}",
            documented_body(CarouselBody, takes_files=True),
        ),
        (
            "/api/v1/carousel/regenerate-slide/{workspaceId}",
            documented_body(RegenerateSlideBody, takes_files=True),
        ),
        ("/api/v1/carousel/generate-pdf", documented_body(PdfBody, takes_files=False)),
        (
            "/api/v1/content-calendar/generate/{workspaceId}",
            documented_body(CalendarBody, takes_files=True),
        ),
    ]:
        shown = paths[path]["post"]["requestBody"]
        assert shown["required"] is True
        assert set(shown["content"]) == set(body["requestBody"]["content"])
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


def test_files_are_in_the_form_schema_only_and_a_form_sends_no_null() -> None:
    json_schema = body_schema(CarouselBody, form=False)
    form_schema = body_schema(CarouselBody, form=True)
    assert set(form_schema["properties"]) - set(json_schema["properties"]) == {
        "brandLogo",
        "referenceImages",
    }
    profile = form_schema["properties"]["userProfileImage"]["anyOf"]
    assert {"type": "string", "format": "binary"} in profile
    assert {"type": "string", "format": "binary"} not in (
        json_schema["properties"]["userProfileImage"]["anyOf"]
    )
    assert {"type": "null"} in json_schema["properties"]["slideCount"]["anyOf"]
    assert "null" not in str(form_schema)
    assert "x-form-only" not in str(json_schema) + str(form_schema)
    calendar = body_schema(CalendarBody, form=False)
    assert "pdf" not in calendar["properties"]
    assert {"required": ["pdf"], "properties": {"pdf": {}}} not in calendar["anyOf"]
    assert {"required": ["pdf"], "properties": {"pdf": {}}} in (
        body_schema(CalendarBody, form=True)["anyOf"]
    )


def test_one_model_reads_json_and_a_form_alike() -> None:
    """The same fields give the same request, numbers as JSON numbers or form digits."""
    from_json = parse_json(
        CarouselBody, {"prompt": " Ship it ", "slideCount": 4, "socialMediaHandle": "ada"}
    )
    from_form = parse_form(
        CarouselBody,
        RequestBody(
            fields={"prompt": "Ship it", "slideCount": "4", "socialMediaHandle": " ada "},
            files={"brandLogo": [b"\x89PNG"]},
        ),
    )
    assert from_json.request() == from_form.request()
    assert from_form.request().handle == "@ada"
    assert (from_json.brandLogo, from_form.brandLogo) == (None, b"\x89PNG")
    regenerate = parse_form(
        RegenerateSlideBody,
        RequestBody(fields={"carouselId": "c1", "slideIndex": "2", "prompt": "A cat"}),
    )
    assert (
        regenerate.request()
        == parse_json(
            RegenerateSlideBody, {"carouselId": "c1", "slideIndex": 2, "prompt": "A cat"}
        ).request()
    )
    calendar = parse_form(
        CalendarBody,
        RequestBody(
            fields={"calendarLength": "7", "articleUrls": ["https://a.example, https://b.example"]},
            files={"pdf": [b"%PDF-1.4"]},
        ),
    ).request()
    assert (calendar.calendar_length, calendar.pdf) == (7, b"%PDF-1.4")
    assert calendar.article_urls == ["https://a.example", "https://b.example"]
    assert parse_json(PdfBody, {"slidesHtml": ["<p>1</p>"]}).width == 1080


@pytest.mark.parametrize(
    ("model", "fields", "message"),
    [
        (CarouselBody, {}, "prompt is required"),
        (CarouselBody, {"prompt": "x", "slideCount": "4"}, "slideCount must be an integer"),
        (CarouselBody, {"prompt": "x", "slideCount": 13}, "slideCount must be between 2 and 12"),
        (CarouselBody, {"prompt": "x", "userProfileImage": ["a"]}, "must be a URL string"),
        (RegenerateSlideBody, {"slideIndex": 0, "prompt": "x"}, "carouselId is required"),
        (CalendarBody, {"calendarLength": "7", "prompt": "x"}, "calendarLength must be 7 or 30"),
        (CalendarBody, {"calendarLength": 7, "prompt": 3}, "prompt must be a string"),
        (PdfBody, {"slidesHtml": ["<p/>"], "width": None}, "width must be an integer"),
        (PdfBody, {"slidesHtml": "<p/>"}, "slidesHtml is required: an array of HTML strings"),
    ],
)
def test_a_bad_field_gets_spec_messages(
    model: type, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(BadRequest, match=message):
        parse_json(model, fields)


def test_a_command_that_imports_the_schemas_does_not_import_the_body_models() -> None:
    """The body models are the API's: the CLI's request shapes come without them."""
    import subprocess
    import sys

    probe = (
        "import sys, socialgen.carousels.schemas, socialgen.content_calendar.schemas;"
        "print(sorted(m for m in sys.modules if m.endswith('.body')))"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert shown.stdout.strip() == "[]", shown.stderr


@pytest.mark.parametrize(
    ("model", "fields", "message"),
    [
        (CarouselBody, {"prompt": "x", "referenceImages": "{}"}, "`referenceImages` must be an"),
        (CarouselBody, {"prompt": "x", "brandLogo": "logo"}, "`brandLogo` must be an image file"),
        (
            RegenerateSlideBody,
            {"carouselId": "c", "slideIndex": "0", "prompt": "x", "referenceImages": "a"},
            "`referenceImages` must be an image",
        ),
        (CalendarBody, {"calendarLength": "7", "pdf": "text"}, "`pdf` must be a PDF file"),
    ],
)
def test_a_text_part_where_a_form_takes_files_is_refused(
    model: type, fields: dict[str, object], message: str
) -> None:
    """The schema says files (schemathesis sent text there): not ignored, a 400."""
    with pytest.raises(BadRequest, match=message):
        parse_form(model, RequestBody(fields=fields))
