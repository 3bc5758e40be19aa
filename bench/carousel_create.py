#!/usr/bin/env python3
"""A whole `carousel create`: where does the time go?

Runs the carousel stream in-process on a fresh store, as `socialgen carousel create`
does, with the procedural images (no image provider), and splits each run into:

* outline: the text model plans the slides (until plan_generated),
* images: every slide's image made and stored (until the last image_generated),
* html / pdf / thumbnail: Jinja2 slides with their text fitted by WeasyPrint's layout,
  the PDF written from those layouts, pypdfium2 (from the service's log),
* save: the rows in one transaction, plus the rest of the stream.

Two text models: the embedded SmolLM2-135M (the offline default; its first run
includes loading it) and an instant scripted model, which shows the pipeline's own
cost without any LLM. The temporary home and the table come from the bench harness
(bench/harness/).

    .venv/bin/python bench/carousel_create.py
    .venv/bin/python bench/carousel_create.py --runs 5 --slides 10 --model scripted
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator

from harness import Samples, Table, bench_env, bench_home, machine_line
from socialgen.ai.model import Chunk, Message, Output, TextModel
from socialgen.app.runtime import Runtime

PHASES = ("outline", "images", "html", "pdf", "thumbnail", "save", "total")
_RENDERED = re.compile(r"html ([\d.]+)s, pdf ([\d.]+)s, thumbnail ([\d.]+)s")
_SLIDE_COUNT = re.compile(r"\b(\d+) slides\b")  # "a LinkedIn carousel of 6 slides"


class ScriptedModel:
    """Answers the outline at once: the pipeline's cost without a model."""

    name = "scripted"
    small = False  # plans in JSON, like a capable provider

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        assert purpose == "carousel_outline", purpose
        count = int(_SLIDE_COUNT.search(messages[-1]["content"]).group(1))  # type: ignore[union-attr]
        slides = [
            {
                "title": f"Point {n}: ship smaller batches",
                "text": "Small releases are easier to review, test and roll back. "
                "Every week teaches you something about your users.",
                "image_prompt": f"An abstract illustration of momentum, variation {n}",
            }
            for n in range(1, count + 1)
        ]
        yield Chunk(
            text=json.dumps(
                {"name": "Ship weekly", "caption": "Why we ship weekly.", "slides": slides}
            )
        )


class RenderTimes(logging.Handler):
    """Reads the html/pdf/thumbnail split the service logs for each carousel."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.last: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def emit(self, record: logging.LogRecord) -> None:
        found = _RENDERED.search(record.getMessage())
        if found:
            html, pdf, thumbnail = (float(part) for part in found.groups())
            self.last = (html, pdf, thumbnail)


async def one_run(
    runtime: Runtime, model: TextModel, slides: int, template: str, times: RenderTimes
) -> dict[str, float]:
    from socialgen.ai.procedural import ProceduralImageModel
    from socialgen.app.caller import Caller
    from socialgen.carousels.plan import Artwork, prepare_carousel
    from socialgen.carousels.schemas import CarouselRequest
    from socialgen.carousels.service import create_carousel
    from socialgen.files.backends import files_of
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import resolve_workspace

    engine = runtime.open_store()
    with read_session(engine) as session:
        workspace_id = resolve_workspace(session, None).id
    request = CarouselRequest(
        prompt="why small teams ship weekly", handle="@ada", template=template, slide_count=slides
    )
    started = time.perf_counter()
    plan = prepare_carousel(
        Caller(engine, workspace_id, None, runtime.settings, files=files_of(runtime)),
        request,
        Artwork(),
    )
    marks: dict[str, float] = {}
    async for item in create_carousel(plan, model, ProceduralImageModel(), runtime.held.cleanups):
        now = time.perf_counter() - started
        if item.name == "plan_generated":
            marks["outline"] = now
        elif item.name == "image_generated":
            marks["images"] = now
        elif item.name == "generating_pdf":
            marks["rendering"] = now
        elif item.name == "complete":
            marks["total"] = now
        elif item.name == "error":
            raise SystemExit(f"carousel failed: {item.data['message']}")
    html, pdf, thumbnail = times.last
    return {
        "outline": marks["outline"],
        "images": marks["images"] - marks["outline"],
        "html": html,
        "pdf": pdf,
        "thumbnail": thumbnail,
        "save": marks["total"] - marks["rendering"] - html - pdf - thumbnail,
        "total": marks["total"],
    }


def report(label: str, runs: list[dict[str, float]]) -> None:
    print(f"\n{label} ({len(runs)} runs; seconds)")
    table = Table("", "median", "min", "first run", indent="  ")
    for phase in PHASES:
        samples = Samples([run[phase] for run in runs])
        table.add(phase, f"{samples.median:.3f}", f"{samples.min:.3f}", f"{samples.values[0]:.3f}")
    table.print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slides", type=int, default=6)
    parser.add_argument("--template", default="bold")
    parser.add_argument("--model", choices=("embedded", "scripted", "both"), default="both")
    args = parser.parse_args()

    with bench_home("socialgen-bench-") as home:
        # In this process: the home's store, the embedded model, procedural images.
        os.environ.clear()
        os.environ.update(bench_env(home))
        # One Runtime for the whole run, as `serve` keeps one per process: a Runtime per
        # carousel would time a fresh engine (its first connection, an empty statement
        # cache) and its settings being read, which no command or server pays per carousel.
        runtime = Runtime()
        try:
            run_models(runtime, args)
        finally:
            runtime.close()


def run_models(runtime: Runtime, args: argparse.Namespace) -> None:
    times = RenderTimes()
    logger = logging.getLogger("socialgen.carousels")
    logger.addHandler(times)
    logger.setLevel(logging.INFO)
    logger.propagate = False

    models: list[tuple[str, TextModel]] = []
    if args.model in ("scripted", "both"):
        models.append(("scripted model (no LLM)", ScriptedModel()))
    if args.model in ("embedded", "both"):
        from socialgen.ai.registry import text_model

        models.append(("embedded SmolLM2-135M", text_model(runtime.settings, runtime.models_dir)))
    print(machine_line())
    print(f"{args.slides} slides, template {args.template}, procedural images")
    for label, model in models:
        runs = [
            asyncio.run(one_run(runtime, model, args.slides, args.template, times))
            for _ in range(args.runs)
        ]
        report(label, runs)


if __name__ == "__main__":
    main()
