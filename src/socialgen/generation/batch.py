"""The batch stream: five variations (or the drafts being regenerated) written
concurrently, each saved as it completes; one failing does not fail the others."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from socialgen.ai.model import TextModel, complete
from socialgen.ai.settings import ai_settings
from socialgen.errors import SocialgenError
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.plan import BatchItem, BatchPlan
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import finished_post, post_messages


async def run_batch(plan: BatchPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    total = len(plan.items)
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    posts: dict[int, dict[str, Any]] = {}
    errors: list[dict[str, Any]] = []
    limit = asyncio.Semaphore(ai_settings().batch_concurrency)
    tasks: list[asyncio.Task[None]] = []
    produced = 0

    def progress(item: BatchItem, status: str, **extra: Any) -> Event:
        return event(
            "batch_progress",
            current=item.index,
            total=total,
            variationName=item.variation_name,
            status=status,
            **extra,
        )

    async def write(item: BatchItem, sources: str) -> None:
        nonlocal produced
        async with limit:
            await queue.put(progress(item, "generating"))
            try:
                variation = f"Style of this version ({item.variation_name}): {item.instruction}"
                messages = post_messages(
                    plan.user_input,
                    style=plan.style,
                    sources=sources,
                    history=[],
                    variation=variation,
                )
                content = finished_post(
                    await complete(model, messages, max_tokens=ai_settings().max_tokens)
                )
                saved = await asyncio.to_thread(
                    persist.save_post,
                    caller.engine,
                    workspace_id=caller.workspace_id,
                    user_id=caller.user_id,
                    conversation_id=item.conversation_id,
                    user_input=plan.user_input,
                    content=content,
                    post_id=item.post_id,
                    variation_name=item.variation_name,
                )
            except SocialgenError as error:
                errors.append(
                    {
                        "index": item.index,
                        "variationName": item.variation_name,
                        "message": error.message,
                    }
                )
                await queue.put(progress(item, "failed", error=error.message))
                return
            produced += 1
            posts[item.index] = {
                "index": item.index,
                "postId": saved.post_id,
                "conversationId": saved.conversation_id,
                "content": content,
                "variationName": item.variation_name,
                "status": "draft",
            }
            await queue.put(progress(item, "completed", postId=saved.post_id))
            await queue.put(
                event(
                    f"post_{item.index}_post_ids",
                    postId=saved.post_id,
                    conversationId=saved.conversation_id,
                    variationName=item.variation_name,
                )
            )

    async def write_all() -> None:
        sources = UrlContext(model, plan.user_input, announce=False)
        async for _ in sources.process():
            pass
        tasks.extend(asyncio.create_task(write(item, sources.text)) for item in plan.items)
        await asyncio.gather(*tasks)

    async def run() -> None:
        try:
            await write_all()
        except SocialgenError as error:  # the shared sources failed: every item fails
            for item in plan.items:
                if item.index not in posts:
                    errors.append(
                        {
                            "index": item.index,
                            "variationName": item.variation_name,
                            "message": error.message,
                        }
                    )
        finally:
            await queue.put(None)

    runner = asyncio.create_task(run())
    try:
        while (item := await queue.get()) is not None:
            yield item
        await runner
        generated = len(posts)
        ordered = [posts[n] for n in sorted(posts)]
        yield event(
            "batch_complete",
            success=generated > 0,
            originalPrompt=plan.user_input,
            isRegeneration=plan.is_regeneration,
            posts=ordered,
            errors=sorted(errors, key=lambda e: e["index"]),
            summary={"total": total, "generated": generated, "failed": total - generated},
        )
        verb = "Regenerated" if plan.is_regeneration else "Generated"
        summary = f"{verb} {generated} of {total} posts as drafts."
        if errors:
            summary += f" {len(errors)} failed: " + "; ".join(e["message"] for e in errors[:3])
        yield event("chat_delta", text=summary)
    finally:
        for task in (*tasks, runner):
            task.cancel()
        for task in (*tasks, runner):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        persist.refund(caller.engine, caller.workspace_id, plan.reserved - produced)
