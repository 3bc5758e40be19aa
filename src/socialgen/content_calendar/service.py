"""The calendar stream: read the sources, plan distinct themes, then write one draft
per day with bounded concurrency, saving each as it completes (a cancelled run
keeps what finished and gives back the quota of the rest)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from functools import partial
from typing import Any

from socialgen.ai.model import TextModel, complete
from socialgen.ai.settings import ai_settings
from socialgen.clock import iso
from socialgen.content_calendar.plan import CalendarPlan
from socialgen.content_calendar.rhythm import suggested_dates
from socialgen.content_calendar.themes import DayTheme, plan_themes
from socialgen.errors import SocialgenError
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.fanout import Emit, fan_out
from socialgen.generation.prompts import render
from socialgen.generation.writing import finished_post

MATERIAL_CHARS = 6000  # all sources together, condensed to fit a small model's context
# Read at most this much of one source before condensing: a long transcript would
# otherwise cost a model call per 6,000 characters.
SOURCE_CHARS = 120_000
FAILED = "failed to generate content calendar"


async def run_calendar(plan: CalendarPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    items: dict[int, dict[str, Any]] = {}

    def progress(day: int, status: str, message: str, **extra: Any) -> Event:
        return event(
            "calendar_progress",
            current=day,
            total=plan.length,
            status=status,
            message=message,
            **extra,
        )

    async def write(
        day: int, theme: DayTheme, when: datetime, themes: list[DayTheme], material: str, emit: Emit
    ) -> None:
        await emit(progress(day, "generating", f"Writing day {day}: {theme.theme}"))
        try:
            content = await _write_day(plan, model, day, theme, themes, material)
            await emit(progress(day, "saving", f"Saving day {day}"))
            saved = await asyncio.to_thread(
                persist.save_post,
                caller.engine,
                workspace_id=caller.workspace_id,
                user_id=caller.user_id,
                conversation_id=None,
                user_input=f"Day {day}: {theme.theme}. {theme.angle}",
                content=content,
                title=theme.theme,
                meta={
                    "source": "calendar",
                    "day": day,
                    "theme": theme.theme,
                    "suggestedDate": iso(when),
                },
            )
        except SocialgenError as error:
            await emit(progress(day, "failed", f"Day {day} failed: {error.message}"))
            return
        items[day] = {
            "index": day,
            "postId": saved.post_id,
            "conversationId": saved.conversation_id,
            "content": content,
            "theme": theme.theme,
            "suggestedDate": iso(when),
            "status": "draft",
        }
        await emit(progress(day, "completed", f"Day {day} saved", postId=saved.post_id))

    try:
        yield event(
            "generation_started",
            calendarLength=plan.length,
            sources=plan.sources,
            message=(
                f"Planning a {plan.length}-day content calendar from {len(plan.sources)} source(s)"
            ),
        )
        material: list[str] = [f"Topic: {plan.prompt}"] if plan.prompt else []
        try:
            async for item in _read_sources(plan, model, material):
                yield item
            themes = await plan_themes(model, "\n\n".join(material), plan.topic, plan.length)
        except SocialgenError as error:
            yield event("error", message=f"{FAILED}: {error.message}")
            return
        days = zip(themes, suggested_dates(plan.start, plan.length), strict=True)
        jobs = [
            partial(write, day, theme, when, themes, "\n\n".join(material))
            for day, (theme, when) in enumerate(days, start=1)
        ]
        async for update in fan_out(jobs, ai_settings().batch_concurrency):
            yield update
        generated = len(items)
        yield event(
            "calendar_complete",
            success=generated > 0,
            calendarLength=plan.length,
            summary={
                "total": plan.length,
                "generated": generated,
                "failed": plan.length - generated,
            },
            posts=[items[day] for day in sorted(items)],
        )
    finally:
        # Days saved so far stay; the others give their quota back.
        persist.refund(caller.engine, caller.workspace_id, plan.reserved - len(items))


async def _read_sources(
    plan: CalendarPlan, model: TextModel, material: list[str]
) -> AsyncIterator[Event]:
    """Extract and condense each source, announcing it; appends to `material`."""
    from socialgen.sources.condense import condense, cut_at_sentence

    count = max(1, len(plan.sources) - (1 if plan.prompt else 0))
    budget = MATERIAL_CHARS // count
    if plan.youtube_url:
        from socialgen.sources.video import extract_video

        yield event(
            "source_processing",
            type="youtube",
            status="extracting",
            message="Reading the video's captions",
        )
        video = await extract_video(plan.youtube_url)
        raw = cut_at_sentence(
            f"Video: {video.title}\n{video.description}\n\n{video.transcript}", SOURCE_CHARS
        )
        material.append(await condense(model, raw, budget_chars=budget))
        yield event(
            "source_processing",
            type="youtube",
            status="complete",
            message=f"Read the captions of {video.title!r}",
        )
    for url in plan.article_urls:
        from socialgen.sources.articles import extract_article

        yield event(
            "source_processing", type="article", status="extracting", message=f"Reading {url}"
        )
        article = await extract_article(url)
        raw = cut_at_sentence(f"Article: {article.title}\n\n{article.text}", SOURCE_CHARS)
        material.append(await condense(model, raw, budget_chars=budget))
        yield event(
            "source_processing",
            type="article",
            status="complete",
            message=f"Read {article.title or url!r}",
        )
    if plan.pdf is not None:
        yield event("source_processing", type="pdf", status="extracting", message="Reading the PDF")
        raw = f"Document: {plan.pdf.title}\n\n{plan.pdf.text}"
        material.append(await condense(model, raw, budget_chars=budget))
        yield event(
            "source_processing",
            type="pdf",
            status="complete",
            message=(
                f"Read {plan.pdf.pages_read} of {plan.pdf.page_count} pages of {plan.pdf.title!r}"
            ),
        )


async def _write_day(
    plan: CalendarPlan,
    model: TextModel,
    day: int,
    theme: DayTheme,
    themes: list[DayTheme],
    material: str,
) -> str:
    others = ", ".join(t.theme for t in themes if t is not theme)[:600]
    messages = [
        {"role": "system", "content": render("post_system", style=plan.style or "")},
        {
            "role": "user",
            "content": render(
                "calendar_post",
                day=str(day),
                theme=theme.theme,
                angle=theme.angle,
                others=others,
                material=material,
            ),
        },
    ]
    return finished_post(await complete(model, messages, max_tokens=ai_settings().max_tokens))
