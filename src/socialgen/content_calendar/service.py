"""The calendar stream: read the sources, plan distinct themes, then write one draft
per day with bounded concurrency, saving each as it completes (a cancelled run
keeps what finished and gives back the quota of the rest)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from functools import partial
from typing import TypedDict, Unpack

from socialgen.ai.model import TextModel, complete
from socialgen.content_calendar.events import (
    CalendarComplete,
    CalendarPost,
    CalendarProgress,
    CalendarSource,
    DayStatus,
    GenerationStarted,
)
from socialgen.content_calendar.plan import CalendarPlan
from socialgen.content_calendar.rhythm import suggested_dates
from socialgen.content_calendar.sources import SourceReading
from socialgen.content_calendar.themes import DayTheme, plan_themes
from socialgen.content_calendar.themes import prompts as calendar_prompts
from socialgen.drafting import persist
from socialgen.drafting.fanout import Emit
from socialgen.drafting.planning import drafts_at_once, short_prompts
from socialgen.drafting.post_prompt import post_system
from socialgen.drafting.quota import Reservation
from socialgen.drafting.runner import DraftRunner
from socialgen.drafting.writing import finished_post
from socialgen.events import Event
from socialgen.events.common import StreamError, Summary
from socialgen.events.payload import Source
from socialgen.kit.clock import iso
from socialgen.kit.errors import SocialgenError

FAILED = "failed to generate content calendar"


class _DayNote(TypedDict, total=False):
    postId: str  # completed
    source: Source  # generating


async def run_calendar(plan: CalendarPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller

    def progress(day: int, status: DayStatus, message: str, **extra: Unpack[_DayNote]) -> Event:
        return Event.of(
            CalendarProgress(
                current=day,
                total=plan.length,
                status=status,
                message=message,
                **extra,
            )
        )

    async def write(
        day: int, theme: DayTheme, when: datetime, themes: list[DayTheme], material: str, emit: Emit
    ) -> CalendarPost:
        await emit(
            progress(day, "generating", f"Writing day {day}: {theme.theme}", source=theme.source)
        )
        content = await _write_day(plan, model, day, theme, themes, material)
        await emit(progress(day, "saving", f"Saving day {day}"))
        saved = await asyncio.to_thread(
            persist.save_post,
            caller.engine,
            workspace_id=caller.workspace_id,
            user_id=caller.user_id,
            conversation_id=None,
            user_input=f"Day {day}: {theme.theme}. {theme.angle}".strip(),
            content=content,
            title=theme.theme,
            meta={
                "source": "calendar",
                "day": day,
                "theme": theme.theme,
                "suggestedDate": iso(when),
            },
            reservation_id=plan.reservation_id,
        )
        await emit(progress(day, "completed", f"Day {day} saved", postId=saved.post_id))
        return CalendarPost(
            index=day,
            postId=saved.post_id,
            conversationId=saved.conversation_id,
            content=content,
            theme=theme.theme,
            suggestedDate=iso(when),
            status="draft",
            source=theme.source,
        )

    def failed(day: int, message: str) -> Event:
        return progress(day, "failed", f"Day {day} failed: {message}")

    # Days saved so far stay; the others give their quota back, however the run ends.
    async with Reservation(caller, plan.reserved, plan.reservation_id) as quota:
        yield Event.of(
            GenerationStarted(
                calendarLength=plan.length,
                sources=[CalendarSource.from_wire(source) for source in plan.sources],
                message=(
                    f"Planning a {plan.length}-day content calendar"
                    f" from {len(plan.sources)} source(s)"
                ),
            )
        )
        reading = SourceReading(plan, model)
        try:
            async for item in reading:
                yield item
            material = reading.material
            themes = await plan_themes(model, material, plan.topic, plan.length)
        except SocialgenError as error:
            yield Event.of(StreamError(message=f"{FAILED}: {error.message}"))
            return
        days = zip(themes, plan.dates or suggested_dates(plan.start, plan.length), strict=True)
        jobs = {
            day: partial(write, day, theme, when, themes, material)
            for day, (theme, when) in enumerate(days, start=1)
        }
        at_once = drafts_at_once(model, caller.settings.batch_concurrency)
        runner = DraftRunner[CalendarPost](quota, at_once)
        async for update in runner.run(jobs, failed):
            yield update
        summary = Summary(**runner.summary(plan.length))
        yield Event.of(
            CalendarComplete(
                success=summary.generated > 0,
                calendarLength=plan.length,
                summary=summary,
                posts=runner.ordered_results(),
            )
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
        {"role": "system", "content": post_system(plan.style, small=short_prompts(model))},
        {
            "role": "user",
            "content": calendar_prompts.render(
                "calendar_post",
                day=str(day),
                theme=theme.theme,
                angle=f"Angle: {theme.angle}" if theme.angle else "",
                others=others,
                material=material,
            ),
        },
    ]
    max_tokens = plan.caller.settings.max_tokens
    answer = await complete(model, messages, max_tokens=max_tokens, purpose="post")
    return finished_post(answer)
