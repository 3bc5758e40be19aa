"""A carousel run in the terminal: the plan, each slide's image as it is made,
then where the PDF and thumbnail were written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.cli_support import styled
from socialgen.events import Event
from socialgen.files.store import path_for_url

if TYPE_CHECKING:
    from rich.console import Console


class CarouselPrinter:
    def __init__(self, out: Console, notes: Console) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self.completed: dict[str, Any] | None = None

    def __call__(self, item: Event) -> None:
        data = item.data
        if item.name == "plan_generated":
            prompts = data["prompts"]
            self.notes.print(f"Plan: {len(prompts)} slides", style="bold")
            for index, prompt in enumerate(prompts):
                self.notes.print(styled((f"  {index}. ", "dim"), prompt))
        elif item.name == "image_generated":
            slide = data["slide"]
            self.notes.print(
                styled(
                    ("✓ ", "green"),
                    (f"slide {data['slideIndex']}: ", "bold"),
                    slide["title"],
                    ("  " + str(path_for_url(slide["image"])), "dim"),
                )
            )
        elif item.name == "generating_pdf":
            self.notes.print(styled(("… ", "dim"), data["message"]))
        elif item.name == "complete":
            self.completed = data["data"]
            self._show(data["data"])
        elif item.name == "error":
            self.failed = True
            self.notes.print(styled(("Error:", "red"), f" {data['message']}"))

    def _show(self, carousel: dict[str, Any]) -> None:
        self.out.print(
            styled(("Carousel ", "bold"), carousel["name"], f"  ({carousel['carouselId']})")
        )
        self.out.print(f"post:      {carousel['postId']} (draft)")
        self.out.print(f"PDF:       {path_for_url(carousel['pdfUrl'])}", soft_wrap=True)
        self.out.print(f"thumbnail: {path_for_url(carousel['thumbnailUrl'])}", soft_wrap=True)
