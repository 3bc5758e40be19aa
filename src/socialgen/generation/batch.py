"""The batch stream: five variations (or the drafts being regenerated) written
concurrently, each saved as it completes; one failing does not fail the others."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from socialgen.ai.model import TextModel, complete
from socialgen.ai.settings import ai_settings
from socialgen.errors import SocialgenError
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.fanout import Emit, fan_out
from socialgen.generation.plan import BatchItem, BatchPlan
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import finished_post, post_messages


async def run_batch(plan: BatchPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    total = len(plan.items)
    posts: dict[int, dict[str, Any]] = {}
    errors: list[dict[str, Any]] = []

    def progress(item: BatchItem, status: str, **extra: Any) -> Event:
        return event(
            "batch_progress",
            current=item.index,
            total=total,
            variationName=item.variation_name,
            status=status,
            **extra,
        )

    def failed(item: BatchItem, message: str) -> None:
        errors.append(
            {"index": item.index, "variationName": item.variation_name, "message": message}
        )

    async def write(item: BatchItem, sources: str, emit: Emit) -> None:
        await emit(progress(item, "generating"))
        try:
            variation = f"Style of this version ({item.variation_name}): {item.instruction}"
            messages = post_messages(
                plan.user_input, style=plan.style, sources=sources, history=[], variation=variation
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
            failed(item, error.message)
            await emit(progress(item, "failed", error=error.message))
            return
        posts[item.index] = {
            "index": item.index,
            "postId": saved.post_id,
            "conversationId": saved.conversation_id,
            "content": content,
            "variationName": item.variation_name,
            "status": "draft",
        }
        await emit(progress(item, "completed", postId=saved.post_id))
        await emit(
            event(
                f"post_{item.index}_post_ids",
                postId=saved.post_id,
                conversationId=saved.conversation_id,
                variationName=item.variation_name,
            )
        )

    try:
        sources = UrlContext(model, plan.user_input, announce=False)
        try:
            async for _ in sources.process():
                pass
        except SocialgenError as error:  # the shared sources failed: every item fails
            for item in plan.items:
                failed(item, error.message)
        else:
            jobs = [partial(write, item, sources.text) for item in plan.items]
            async for update in fan_out(jobs, ai_settings().batch_concurrency):
                yield update
        generated = len(posts)
        yield event(
            "batch_complete",
            success=generated > 0,
            originalPrompt=plan.user_input,
            isRegeneration=plan.is_regeneration,
            posts=[posts[n] for n in sorted(posts)],
            errors=sorted(errors, key=lambda e: e["index"]),
            summary={"total": total, "generated": generated, "failed": total - generated},
        )
        verb = "Regenerated" if plan.is_regeneration else "Generated"
        summary = f"{verb} {generated} of {total} posts as drafts."
        if errors:
            summary += f" {len(errors)} failed: " + "; ".join(e["message"] for e in errors[:3])
        yield event("chat_delta", text=summary)
    finally:
        # Whatever stopped us, the posts not written give their quota back.
        persist.refund(caller.engine, caller.workspace_id, plan.reserved - len(posts))
