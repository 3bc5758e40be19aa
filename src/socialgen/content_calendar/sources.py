"""Reading a calendar's sources: each video, article and PDF extracted, condensed
to its share of the material, and announced as it is read.

A `SourceReading` is both the stream of source_processing events and its result:
iterate it, then `material` holds the text the themes and posts are grounded in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from socialgen.ai.model import TextModel
from socialgen.content_calendar.events import SourceProcessing
from socialgen.content_calendar.plan import CalendarPlan
from socialgen.events import Event

MATERIAL_CHARS = 6000  # all sources together, condensed to fit a small model's context
# Read at most this much of one source before condensing: a long transcript would
# otherwise cost a model call per 6,000 characters.
SOURCE_CHARS = 120_000


class SourceReading:
    def __init__(self, plan: CalendarPlan, model: TextModel) -> None:
        self.plan = plan
        self.model = model
        self._parts: list[str] = [f"Topic: {plan.prompt}"] if plan.prompt else []

    @property
    def material(self) -> str:
        return "\n\n".join(self._parts)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._read()

    async def _read(self) -> AsyncIterator[Event]:
        from socialgen.sources.condense import condense, cut_at_sentence

        plan, model = self.plan, self.model
        allow_private = plan.caller.settings.allow_private_urls
        count = max(1, len(plan.sources) - (1 if plan.prompt else 0))
        budget = MATERIAL_CHARS // count
        if plan.youtube_url:
            from socialgen.sources.video import extract_video

            yield Event.of(
                SourceProcessing(
                    type="youtube",
                    status="extracting",
                    message="Reading the video's captions",
                )
            )
            video = await extract_video(plan.youtube_url, allow_private=allow_private)
            raw = cut_at_sentence(
                f"Video: {video.title}\n{video.description}\n\n{video.transcript}", SOURCE_CHARS
            )
            self._parts.append(await condense(model, raw, budget_chars=budget))
            yield Event.of(
                SourceProcessing(
                    type="youtube",
                    status="complete",
                    message=f"Read the captions of {video.title!r}",
                )
            )
        for url in plan.article_urls:
            from socialgen.sources.articles import extract_article

            yield Event.of(
                SourceProcessing(type="article", status="extracting", message=f"Reading {url}")
            )
            article = await extract_article(url, allow_private=allow_private)
            raw = cut_at_sentence(f"Article: {article.title}\n\n{article.text}", SOURCE_CHARS)
            self._parts.append(await condense(model, raw, budget_chars=budget))
            yield Event.of(
                SourceProcessing(
                    type="article",
                    status="complete",
                    message=f"Read {article.title or url!r}",
                )
            )
        if plan.pdf is not None:
            yield Event.of(
                SourceProcessing(type="pdf", status="extracting", message="Reading the PDF")
            )
            raw = f"Document: {plan.pdf.title}\n\n{plan.pdf.text}"
            self._parts.append(await condense(model, raw, budget_chars=budget))
            yield Event.of(
                SourceProcessing(
                    type="pdf",
                    status="complete",
                    message=(
                        f"Read {plan.pdf.pages_read} of {plan.pdf.page_count} pages of "
                        f"{plan.pdf.title!r}"
                    ),
                )
            )
