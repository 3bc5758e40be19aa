"""A carousel run in the terminal: the plan, each slide's image as it is made,
then where the PDF and thumbnail were written. Events are read through their payload
models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from socialgen.carousels.events import (
    CarouselComplete,
    GeneratingPdf,
    ImageGenerated,
    PlanGenerated,
    StoredCarousel,
)
from socialgen.cli.support import styled
from socialgen.events import Event
from socialgen.events.common import StreamError

if TYPE_CHECKING:
    from rich.console import Console


class CarouselPrinter:
    """`path_for_url`: where a file URL lives on this machine (the command's file
    store's `path_for_url`), so the lines name the files a user can open."""

    def __init__(
        self, out: Console, notes: Console, *, path_for_url: Callable[[str], Path]
    ) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self._path = path_for_url

    def __call__(self, item: Event) -> None:
        match item.payload:
            case PlanGenerated(prompts=prompts) as plan:
                self.notes.print(f"Plan: {len(prompts)} slides", style="bold")
                self._template_note(plan)
                for index, prompt in enumerate(prompts):
                    self.notes.print(styled((f"  {index}. ", "dim"), prompt))
            case ImageGenerated(slideIndex=index, slide=slide):
                self.notes.print(
                    styled(
                        ("✓ ", "green"),
                        (f"slide {index}: ", "bold"),
                        slide.title,
                        (" (template)" if slide.source == "template" else "", "yellow"),
                        ("  " + str(self._path(slide.image)), "dim"),
                    )
                )
            case GeneratingPdf(message=message):
                self.notes.print(styled(("… ", "dim"), message))
            case CarouselComplete(data=carousel):
                self._show(carousel)
            case StreamError(message=message):
                self.failed = True
                self.notes.print(styled(("Error:", "red"), f" {message}"))

    def _template_note(self, plan: PlanGenerated) -> None:
        """One dim line when the plain outline stood in for the model (the user is told)."""
        if plan.templateSlides:
            self.notes.print(
                f"the model gave no usable outline; {plan.templateSlides} of {len(plan.prompts)}"
                " slides use the plain outline",
                style="dim",
            )

    def _show(self, carousel: StoredCarousel) -> None:
        self.out.print(styled(("Carousel ", "bold"), carousel.name, f"  ({carousel.carouselId})"))
        self.out.print(f"post:      {carousel.postId} (draft)")
        self.out.print(f"PDF:       {self._path(carousel.pdfUrl)}", soft_wrap=True)
        self.out.print(f"thumbnail: {self._path(carousel.thumbnailUrl)}", soft_wrap=True)
