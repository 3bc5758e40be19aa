"""The carousel stream (each SSE data is {type, data}): the plan, one image per slide
as it is made, the PDF, then the stored carousel."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from socialgen.events.payload import EventPayload, Source, Tally, WireObject


class PlanGenerated(EventPayload):
    """The outline is ready: one image prompt per slide, in slide order."""

    event_name: ClassVar[str] = "plan_generated"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"prompts": ["An illustration"], "source": "template", "templateSlides": 1},
    )
    prompts: list[str] = Field(description="One image prompt per slide.")
    source: Source | None = Field(
        default=None,
        description=(
            "Where the outline came from: the model, or the built-in template that stood in"
            " (socialgen's addition)."
        ),
    )
    templateSlides: int | None = Field(
        default=None,
        ge=0,
        description="How many slides the built-in template wrote (socialgen's addition).",
    )

    def progress(self, tally: Tally) -> str | None:
        tally.total = len(self.prompts) + 1  # every slide's image, then the PDF
        return f"Planned {len(self.prompts)} slides"


class StreamedSlide(WireObject):
    title: str = Field(description="The slide's title.")
    content: str = Field(description="The slide's text.")
    image: str = Field(description="URL of the slide's image, relative to the server.")
    source: Source | None = Field(
        default=None,
        description="Where the slide's words came from (socialgen's addition).",
    )


class ImageGenerated(EventPayload):
    """One slide's image is stored; up to 3 are made at once, so slides arrive in the
    order they finish."""

    event_name: ClassVar[str] = "image_generated"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "slideIndex": 0,
            "slide": {
                "title": "Ship weekly",
                "content": "Small teams ship weekly.",
                "image": "/api/v1/files/ws1/carousels/c1/slide-0.jpg",
                "source": "model",
            },
        },
    )
    slideIndex: int = Field(ge=0, description="The slide, counting from 0.")
    slide: StreamedSlide = Field(description="The slide so far.")

    def progress(self, tally: Tally) -> str | None:
        tally.done += 1
        return f"Slide {self.slideIndex + 1}: image ready"


class GeneratingPdf(EventPayload):
    """Every image is made; the slides are being rendered to a PDF."""

    event_name: ClassVar[str] = "generating_pdf"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"message": "Rendering 1 slides to PDF"},)
    message: str = Field(description='A status line, e.g. "Rendering 4 slides to PDF".')

    def progress(self, tally: Tally) -> str | None:
        return self.message


class ProfileImage(WireObject):
    url: str = Field(description='The author\'s picture, relative to the server; "" if none.')


class SlideUser(WireObject):
    name: str = Field(description='The author\'s name, else the handle, else "".')
    profileImage: ProfileImage = Field(description="The author's picture.")


class SlideTheme(WireObject):
    primaryColor: str = Field(description="CSS colour.")
    backgroundColor: str = Field(description="CSS colour.")
    font: str = Field(description="Font family.")


class CarouselSlide(WireObject):
    id: str = Field(description="The slide.")
    slideIndex: int = Field(ge=0, description="Counts from 0 (socialgen's addition).")
    title: str = Field(description="The slide's title.")
    content: str = Field(description="The slide's text.")
    image: str = Field(description="URL of the slide's image (JPEG), relative to the server.")
    user: SlideUser = Field(description="The author shown on the slide.")
    theme: SlideTheme = Field(description="The template's theme.")
    source: Source | None = Field(
        default=None,
        description="Where the slide's words came from (socialgen's addition).",
    )


class StoredCarousel(WireObject):
    carouselId: str = Field(description="The carousel.")
    name: str = Field(description="From the model, or from the topic when unusable.")
    status: str = Field(description="draft.")
    template: str = Field(description="The slide template used (socialgen's addition).")
    postId: str = Field(description="The carousel's draft post (socialgen's addition).")
    pdfUrl: str = Field(description="The PDF, relative to the server.")
    thumbnailUrl: str = Field(description="Page 1 as a PNG, relative to the server.")
    slides: list[CarouselSlide] = Field(description="In order.")


class CarouselComplete(EventPayload):
    """The carousel and its draft post are stored."""

    event_name: ClassVar[str] = "complete"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "success": True,
            "data": {
                "carouselId": "c1",
                "name": "Ship weekly",
                "status": "draft",
                "template": "bold",
                "postId": "p1",
                "pdfUrl": "/api/v1/files/ws1/carousels/c1/carousel.pdf",
                "thumbnailUrl": "/api/v1/files/ws1/carousels/c1/thumbnail.png",
                "slides": [
                    {
                        "id": "s1",
                        "slideIndex": 0,
                        "title": "Ship weekly",
                        "content": "Small teams ship weekly.",
                        "image": "/api/v1/files/ws1/carousels/c1/slide-0.jpg",
                        "user": {"name": "Ada", "profileImage": {"url": ""}},
                        "theme": {
                            "primaryColor": "#E4572E",
                            "backgroundColor": "#FFFFFF",
                            "font": "DejaVu Sans",
                        },
                    },
                    {
                        "id": "s2",
                        "slideIndex": 1,
                        "title": "Ship weekly",
                        "content": "Small teams ship weekly.",
                        "image": "/api/v1/files/ws1/carousels/c1/slide-0.jpg",
                        "user": {"name": "Ada", "profileImage": {"url": ""}},
                        "theme": {
                            "primaryColor": "#E4572E",
                            "backgroundColor": "#FFFFFF",
                            "font": "DejaVu Sans",
                        },
                        "source": "template",
                    },
                ],
            },
        },
    )
    success: bool = Field(description="True.")
    data: StoredCarousel = Field(description="The carousel.")

    def reports_failure(self) -> bool:
        return not self.success
