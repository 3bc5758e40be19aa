"""The carousel endpoints over HTTP: the typed stream, stored files and their
authorisation, the carousel on its post, slide regeneration, generate-pdf,
templates, and every refusal leaving nothing behind."""

from __future__ import annotations

import io
from typing import Any

import pypdfium2 as pdfium
import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from socialgen.ai.image_types import ImageResult
from socialgen.ai.model import ModelError
from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from socialgen.store.engine import transaction
from socialgen.store.tables import Carousel, Post
from socialgen.workspaces.service import set_post_quota
from tests.carousel_support import (
    CREATE_URL,
    PDF_URL,
    REGENERATE_URL,
    counts,
    create,
    png,
)
from tests.conftest import Store
from tests.scripted_support import ScriptedAI

SLIDE_KEYS = {"id", "slideIndex", "title", "content", "source", "image", "user", "theme"}


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key()}


def pdf_pages(data: bytes) -> list[tuple[float, float]]:
    document = pdfium.PdfDocument(data)
    return [document[i].get_size() for i in range(len(document))]


def test_a_carousel_streams_its_plan_images_pdf_then_the_stored_carousel(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    events = create(
        ai_client,
        store,
        headers,
        json={"prompt": "why small teams ship weekly", "socialMediaHandle": "ada", "slideCount": 4},
    )
    names = [e.name for e in events]
    assert names[0] == "plan_generated"
    assert names[1:5] == ["image_generated"] * 4
    assert names[5:] == ["generating_pdf", "complete"]
    assert events[0].data["prompts"] == [f"An illustration for slide {n}" for n in range(1, 5)]
    # The model wrote every slide, and the plan says so.
    assert events[0].data["source"] == "model"
    assert events[0].data["templateSlides"] == 0
    images = {e.data["slideIndex"]: e.data["slide"] for e in events if e.name == "image_generated"}
    assert sorted(images) == [0, 1, 2, 3]
    assert all(set(slide) == {"title", "content", "source", "image"} for slide in images.values())
    assert {slide["source"] for slide in images.values()} == {"model"}
    assert images[2]["title"] == "Lesson 3"
    assert set(events[5].data) == {"message"}

    complete = events[-1].data
    assert complete["success"] is True
    carousel = complete["data"]
    assert {"carouselId", "name", "status", "pdfUrl", "thumbnailUrl", "slides"} <= set(carousel)
    assert carousel["status"] == "draft"
    assert carousel["name"] == "Ship weekly"
    assert [s["slideIndex"] for s in carousel["slides"]] == [0, 1, 2, 3]
    slide = carousel["slides"][0]
    assert set(slide) == SLIDE_KEYS
    assert set(slide["theme"]) == {"primaryColor", "backgroundColor", "font"}
    assert set(slide["user"]) == {"name", "profileImage"}
    assert slide["image"] == images[0]["image"]

    pdf = ai_client.get(carousel["pdfUrl"], headers=headers)
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf_pages(pdf.content) == [(810.0, 1012.5)] * 4  # 1080 x 1350 CSS px
    text = pdfium.PdfDocument(pdf.content)[2].get_textpage().get_text_range()
    assert "Lesson 3" in text and "@ada" in text  # vector text, selectable
    thumbnail = ai_client.get(carousel["thumbnailUrl"], headers=headers)
    assert thumbnail.headers["content-type"] == "image/png"
    assert thumbnail.content.startswith(b"\x89PNG")
    image = ai_client.get(slide["image"], headers=headers)
    assert image.headers["content-type"] == "image/jpeg"
    assert counts(store)["used"] == 1


def test_the_carousel_is_reachable_from_its_post(
    ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "shipping", "slideCount": 3})[-1]
    data = carousel.data["data"]
    bearer = {**headers, "Authorization": f"Bearer {store.token()}"}
    recent = ai_client.get(
        f"/api/v1/ai-conversation/recent-posts/{store.workspace_id}", headers=bearer
    ).json()["data"]["posts"]
    [post] = [p for p in recent if p["postType"] == "carousel"]
    assert post["id"] == data["postId"]
    assert post["postContent"].startswith("Small teams ship weekly.")
    assert post["carousel"]["id"] == data["carouselId"]
    assert post["carousel"]["pdfUrl"] == data["pdfUrl"]
    assert post["carousel"]["thumbnailUrl"] == data["thumbnailUrl"]
    assert post["carousel"]["slides"] == data["slides"]

    # Scheduled, it shows on the timeline with the same carousel.
    with transaction(store.engine) as session:
        row = session.get(Post, data["postId"])
        assert row is not None
        from socialgen.posts.service import schedule
        from tests.conftest import days_ahead

        schedule(session, store.workspace_id, row.id, days_ahead(2))
    timeline = ai_client.get(
        f"/api/v1/ai-conversation/posts-timeline/{store.workspace_id}", headers=bearer
    ).json()["data"]["posts"]
    assert [p["carousel"]["id"] for p in timeline] == [data["carouselId"]]
    assert {"id", "name", "thumbnailUrl", "pdfUrl"} <= set(timeline[0]["carousel"])


def test_reference_images_logo_and_profile_picture_as_multipart(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    files = [
        ("referenceImages", ("a.png", png("#112233"), "image/png")),
        ("referenceImages", ("b.png", png("#445566"), "image/png")),
        ("brandLogo", ("logo.png", png("#ff0000", (40, 40)), "image/png")),
        ("userProfileImage", ("me.jpg", png("#00ff00", (50, 50)), "image/jpeg")),
    ]
    events = create(
        ai_client,
        store,
        headers,
        data={"prompt": "brand carousel", "slideCount": "2", "template": "minimal"},
        files=files,
    )
    carousel = events[-1].data["data"]
    assert carousel["template"] == "minimal"
    profile_url = carousel["slides"][0]["user"]["profileImage"]["url"]
    assert profile_url.startswith(f"/api/v1/files/{store.workspace_id}/")
    assert ai_client.get(profile_url, headers=headers).content == png(
        "#00ff00", (50, 50)
    )  # small: kept
    with transaction(store.engine) as session:
        stored = session.exec(select(Carousel)).one()
        assert stored.logo_file is not None and stored.profile_image_file is not None
    # The logo is drawn on every slide: each page holds more images than the slide art.
    pdf = ai_client.get(carousel["pdfUrl"], headers=headers).content
    document = pdfium.PdfDocument(pdf)
    for page in document:
        kinds = [obj.type for obj in page.get_objects()]
        assert kinds.count(pdfium.raw.FPDF_PAGEOBJ_IMAGE) >= 3  # art, logo, profile


def test_files_are_only_served_to_their_workspace(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})[-1]
    pdf_url = carousel.data["data"]["pdfUrl"]
    other = store.workspace("Other")
    other_key = {"x-api-key": store.api_key(other)}
    assert ai_client.get(pdf_url).status_code == 401
    assert ai_client.get(pdf_url, headers=other_key).status_code == 403
    # The other workspace's own path to the same file name does not exist.
    stolen = pdf_url.replace(store.workspace_id, other)
    assert ai_client.get(stolen, headers=other_key).status_code == 404
    traversal = f"/api/v1/files/{store.workspace_id}/carousels/..%2F..%2Fsocialgen.db"
    response = ai_client.get(traversal, headers=headers)
    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "File not found"}


@pytest.mark.parametrize(
    ("body", "files", "message"),
    [
        ({}, None, "prompt is required"),
        ({"prompt": "x", "slideCount": 1}, None, "slideCount must be between 2 and 12"),
        ({"prompt": "x", "slideCount": "many"}, None, "slideCount must be an integer"),
        ({"prompt": "x", "template": "neon"}, None, "Unknown template 'neon'"),
        ({"prompt": "x", "socialMediaHandle": "a b"}, None, "socialMediaHandle must be"),
        (
            {"prompt": "x", "userProfileImage": "http://127.0.0.1/me.png"},
            None,
            "127.0.0.1",
        ),
        (
            {"prompt": "x"},
            [("referenceImages", (f"{n}.png", png(), "image/png")) for n in range(6)],
            "At most 5 reference images are allowed",
        ),
        (
            {"prompt": "x"},
            [("referenceImages", ("fake.png", b"just some text, not a picture", "image/png"))],
            "referenceImages[0] is not a PNG, JPEG, WebP or GIF image",
        ),
        (
            {"prompt": "x"},
            [("brandLogo", ("logo.png", b"%PDF-1.7 not an image", "image/png"))],
            "brandLogo is not a PNG, JPEG, WebP or GIF image",
        ),
    ],
)
def test_bad_input_is_refused_before_anything_is_made(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
    body: dict[str, Any],
    files: list[Any] | None,
    message: str,
) -> None:
    before = counts(store)
    if files is None:
        response = ai_client.post(f"{CREATE_URL}/{store.workspace_id}", headers=headers, json=body)
    else:
        response = ai_client.post(
            f"{CREATE_URL}/{store.workspace_id}",
            headers=headers,
            data={k: str(v) for k, v in body.items()},
            files=files,
        )
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["success"] is False
    assert message in response.json()["message"]
    assert counts(store) == before
    assert scripted_ai.calls == []  # the model was never asked
    assert scripted_ai.images.calls == []


def test_an_oversized_image_is_refused(
    files_at: str, client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    from socialgen.kit.limits import MAX_IMAGE_BYTES

    big = png() + b"\0" * MAX_IMAGE_BYTES
    response = client.post(
        f"{CREATE_URL}/{store.workspace_id}",
        headers=headers,
        data={"prompt": "x"},
        files=[("brandLogo", ("logo.png", big, "image/png"))],
    )
    assert response.status_code in (400, 413)
    assert "brandLogo is larger than 8 MB" in response.json()["message"]
    assert counts(store)["files"] == 0


def test_the_quota_is_checked_first(
    ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 0)
    response = ai_client.post(
        f"{CREATE_URL}/{store.workspace_id}", headers=headers, json={"prompt": "x"}
    )
    assert response.status_code == 403
    assert counts(store)["files"] == 0


def test_a_failed_image_leaves_nothing_and_refunds_the_quota(
    files_at: str,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
) -> None:
    # The image provider refuses (its HTTP side: tests/test_carousel_images.py).
    scripted_ai.images.fail = ModelError("The image provider refused the request")
    before = counts(store)
    response = ai_client.post(
        f"{CREATE_URL}/{store.workspace_id}", headers=headers, json={"prompt": "x"}
    )
    from tests.carousel_support import typed_events

    events = typed_events(response.text)
    assert events[0].name == "plan_generated"
    assert events[-1].name == "error"
    assert set(events[-1].data) == {"message"}
    assert counts(store) == before


def test_images_come_from_the_image_model(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    # A provider's PNG (which model the settings pick, and its wire, are in
    # tests/test_carousel_images.py).
    scripted_ai.images.responder = lambda call: ImageResult(
        png("#336699", (call.width, call.height)), "image/png"
    )
    events = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})
    assert events[-1].name == "complete"
    prompts = sorted(call.prompt for call in scripted_ai.images.calls)
    assert prompts == ["An illustration for slide 1", "An illustration for slide 2"]
    image = ai_client.get(events[-1].data["data"]["slides"][0]["image"], headers=headers)
    # The provider sent PNG; slide art is stored as JPEG (WeasyPrint embeds it as is).
    assert image.headers["content-type"] == "image/jpeg"


def test_regenerating_a_slide_replaces_its_image_pdf_and_thumbnail(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 3})[-1].data[
        "data"
    ]
    before = counts(store)
    bearer = {**headers, "Authorization": f"Bearer {store.token()}"}
    response = ai_client.post(
        f"{REGENERATE_URL}/{store.workspace_id}",
        headers=bearer,
        json={"carouselId": carousel["carouselId"], "slideIndex": 1, "prompt": "a red bicycle"},
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert response.json()["success"] is True
    assert data["slideIndex"] == 1
    assert set(data["slide"]) == SLIDE_KEYS
    assert data["slide"]["image"] != carousel["slides"][1]["image"]
    assert data["slide"]["title"] == carousel["slides"][1]["title"]
    assert data["pdfUrl"] != carousel["pdfUrl"]
    # The thumbnail is page 1, which did not change: same bytes, same URL.
    assert data["thumbnailUrl"] == carousel["thumbnailUrl"]
    assert ai_client.get(data["thumbnailUrl"], headers=headers).status_code == 200
    # Old files are gone, new ones served; nothing else changed.
    assert ai_client.get(carousel["pdfUrl"], headers=headers).status_code == 404
    assert ai_client.get(carousel["slides"][1]["image"], headers=headers).status_code == 404
    assert ai_client.get(data["pdfUrl"], headers=headers).status_code == 200
    assert counts(store) == before
    # The post carries the new files.
    with transaction(store.engine) as session:
        post = session.get(Post, carousel["postId"])
        assert post is not None and post.carousel is not None
        assert post.carousel["pdfUrl"] == data["pdfUrl"]
        assert post.carousel["slides"][1]["image"] == data["slide"]["image"]


def test_regenerate_with_new_reference_images_as_multipart(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})[-1].data[
        "data"
    ]
    response = ai_client.post(
        f"{REGENERATE_URL}/{store.workspace_id}",
        headers=headers,
        data={"carouselId": carousel["carouselId"], "slideIndex": "0", "prompt": "blue"},
        files=[("referenceImages", ("r.png", png("#0000ff"), "image/png"))],
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["thumbnailUrl"] != carousel["thumbnailUrl"]  # page 1 changed


@pytest.mark.parametrize(
    ("index", "status", "message"),
    [
        (2, 400, "slideIndex 2 is out of range: the carousel has 2 slides (0 to 1)"),
        (-1, 400, "slideIndex must be 0 or more"),
        ("one", 400, "slideIndex must be an integer"),
        (1.5, 400, "slideIndex must be an integer"),
        (None, 400, "slideIndex is required"),
    ],
)
def test_regenerate_refuses_a_bad_slide_index(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    index: Any,
    status: int,
    message: str,
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})[-1].data[
        "data"
    ]
    before = counts(store)
    body: dict[str, Any] = {"carouselId": carousel["carouselId"], "prompt": "p"}
    if index is not None:
        body["slideIndex"] = index
    response = ai_client.post(f"{REGENERATE_URL}/{store.workspace_id}", headers=headers, json=body)
    assert response.status_code == status
    assert message in response.json()["message"]
    assert counts(store) == before


def test_regenerate_cannot_reach_another_workspace_or_an_unknown_carousel(
    ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})[-1].data[
        "data"
    ]
    other = store.workspace("Other")
    other_key = {"x-api-key": store.api_key(other)}
    body = {"carouselId": carousel["carouselId"], "slideIndex": 0, "prompt": "p"}
    response = ai_client.post(f"{REGENERATE_URL}/{other}", headers=other_key, json=body)
    assert response.status_code == 404
    assert response.json()["message"] == "Carousel not found"
    # A key of the other workspace can't act on this one either.
    response = ai_client.post(
        f"{REGENERATE_URL}/{store.workspace_id}", headers=other_key, json=body
    )
    assert response.status_code == 403
    body["carouselId"] = "nope"
    response = ai_client.post(f"{REGENERATE_URL}/{store.workspace_id}", headers=headers, json=body)
    assert response.status_code == 404


def test_regenerate_needs_a_member_of_the_workspace(ai_client: TestClient, store: Store) -> None:
    outsider = "outsider@example.com"
    store.user(outsider)
    member = "member@example.com"
    store.user(member, workspace_id=store.workspace_id, role="member")
    key = store.api_key(None)  # a key for any workspace: bearer tokens say who
    body = {"carouselId": "whatever", "slideIndex": 0, "prompt": "p"}
    url = f"{REGENERATE_URL}/{store.workspace_id}"
    assert ai_client.post(url, headers={"x-api-key": key}, json=body).status_code == 401
    denied = ai_client.post(
        url,
        headers={"x-api-key": key, "Authorization": f"Bearer {store.token(outsider)}"},
        json=body,
    )
    assert denied.status_code == 403
    allowed = ai_client.post(
        url,
        headers={"x-api-key": key, "Authorization": f"Bearer {store.token(member)}"},
        json=body,
    )
    assert allowed.status_code == 404  # past the role check: the carousel does not exist


def slide_html(title: str) -> str:
    return f"<html><body><h1>{title}</h1><p>Some text.</p></body></html>"


def test_generate_pdf_renders_one_page_per_slide(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    response = client.post(
        PDF_URL, headers=headers, json={"slidesHtml": [slide_html(f"Slide {n}") for n in range(3)]}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert pdf_pages(response.content) == [(810.0, 1012.5)] * 3
    sized = client.post(
        PDF_URL,
        headers=headers,
        json={"slidesHtml": [slide_html("A")], "width": 1080, "height": 1080},
    )
    assert pdf_pages(sized.content) == [(810.0, 810.0)]
    text = pdfium.PdfDocument(io.BytesIO(response.content))[1].get_textpage().get_text_range()
    assert "Slide 1" in text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "slidesHtml is required"),
        ({"slidesHtml": "<p>x</p>"}, "slidesHtml is required"),
        ({"slidesHtml": []}, "slidesHtml"),
        ({"slidesHtml": ["<p>x</p>", "   "]}, "slidesHtml[1] is empty"),
        ({"slidesHtml": ["<p>x</p>"], "width": 0}, "width"),
        ({"slidesHtml": ["<p>x</p>"], "height": -5}, "height"),
        ({"slidesHtml": ["<p>x</p>"], "width": 100000}, "width"),
        ({"slidesHtml": ["<p>x</p>"], "width": "wide"}, "width must be an integer"),
    ],
)
def test_generate_pdf_refuses_bad_input(
    client: TestClient, store: Store, headers: dict[str, str], body: dict[str, Any], message: str
) -> None:
    response = client.post(PDF_URL, headers=headers, json=body)
    assert response.status_code == 400, response.text
    assert message in response.json()["message"]


def test_generate_pdf_needs_an_authenticated_user(client: TestClient, store: Store) -> None:
    body = {"slidesHtml": [slide_html("A")]}
    assert client.post(PDF_URL, json=body).status_code == 401
    unbound = {"x-api-key": store.api_key(None)}
    assert client.post(PDF_URL, headers=unbound, json=body).status_code == 401
    with_user = {**unbound, "Authorization": f"Bearer {store.token()}"}
    assert client.post(PDF_URL, headers=with_user, json=body).status_code == 200


def test_templates_are_public_and_distinct(client: TestClient) -> None:
    response = client.get("/api/v1/carousel/templates")
    assert response.status_code == 200
    templates = response.json()["data"]
    assert len(templates) >= 3
    assert len({t["name"] for t in templates}) == len(templates)
    assert all(set(t["theme"]) == {"primaryColor", "backgroundColor", "font"} for t in templates)


def test_deleting_the_post_deletes_the_carousel(
    files_at: str, ai_client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    carousel = create(ai_client, store, headers, json={"prompt": "x", "slideCount": 2})[-1].data[
        "data"
    ]
    bearer = {**headers, "Authorization": f"Bearer {store.token()}"}
    response = ai_client.delete(
        f"/api/v1/ai-conversation/post/{store.workspace_id}/{carousel['postId']}", headers=bearer
    )
    assert response.status_code == 200
    assert response.json()["data"]["postType"] == "carousel"
    assert counts(store)["carousels"] == 0
    assert counts(store)["slides"] == 0
    assert counts(store)["files"] == 0  # its images, PDF and thumbnail too
    assert ai_client.get(carousel["pdfUrl"], headers=headers).status_code == 404


def test_generate_pdf_stops_a_render_that_runs_too_long(
    store: Store, headers: dict[str, str]
) -> None:
    heavy = "<table>" + "<tr><td>x</td></tr>" * 20000 + "</table>"  # ~40 s of layout
    # No clock: without the timeout the render finishes (a 200, after ~40 s).
    with TestClient(create_app(Runtime(options={"pdf_timeout": 1.0}))) as client:
        response = client.post(PDF_URL, headers=headers, json={"slidesHtml": [heavy]})
    assert response.status_code == 422
    assert response.json()["message"].startswith("The slides took longer than 1 s to render")
    # The worker was replaced: the next request renders normally (the same process's
    # pool, a server started with the default 30 s).
    with TestClient(create_app(Runtime(options={"pdf_timeout": 30.0}))) as client:
        response = client.post(PDF_URL, headers=headers, json={"slidesHtml": [slide_html("A")]})
    assert response.status_code == 200
    assert pdf_pages(response.content) == [(810.0, 1012.5)]


def test_generate_pdf_of_deeply_nested_tables_names_no_python_exception(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    """WeasyPrint recurses once per nesting level: 3,000 nested tables exhaust Python's
    stack. The 422 says what is wrong in words, never `RecursionError`."""
    depth = 3000
    html = "<table><tr><td>" * depth + "deep" + "</td></tr></table>" * depth
    response = client.post(PDF_URL, headers=headers, json={"slidesHtml": [html]})
    assert response.status_code == 422, response.text
    message = response.json()["message"]
    assert message == "The slides could not be rendered: their HTML is nested too deeply"
    assert "Error" not in message
