"""The batch stream: five variations (or the drafts being regenerated) written
concurrently, each saved as it completes; one failing does not fail the others."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import TypedDict, Unpack

from socialgen.ai.model import TextModel
from socialgen.app.caller import Caller
from socialgen.drafting import persist
from socialgen.drafting.fanout import Emit
from socialgen.drafting.planning import drafts_at_once, short_prompts, variation_prompt
from socialgen.drafting.post_prompt import post_messages
from socialgen.drafting.quota import Reservation
from socialgen.drafting.runner import DraftRunner
from socialgen.drafting.writing import write_draft
from socialgen.events import Event
from socialgen.events.chat import ChatDelta
from socialgen.events.common import Summary
from socialgen.generation.batch_events import (
    BatchComplete,
    BatchFailure,
    BatchPost,
    BatchProgress,
    BatchRanking,
    BatchStatus,
    NumberedPostIds,
)
from socialgen.generation.plan import BatchItem, BatchPlan
from socialgen.generation.url_context import UrlContext
from socialgen.kit.errors import SocialgenError


class _Outcome(TypedDict, total=False):
    postId: str  # completed
    error: str  # failed


async def run_batch(plan: BatchPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    total = len(plan.items)
    items = {item.index: item for item in plan.items}

    def progress(item: BatchItem, status: BatchStatus, **extra: Unpack[_Outcome]) -> Event:
        return Event.of(
            BatchProgress(
                current=item.index,
                total=total,
                variationName=item.variation_name,
                status=status,
                **extra,
            )
        )

    async def write(item: BatchItem, sources: str, emit: Emit) -> BatchPost:
        await emit(progress(item, "generating"))
        variation = variation_prompt(model, item.variation_name, item.instruction)
        messages = post_messages(
            plan.user_input,
            style=plan.style,
            sources=sources,
            history=[],
            variation=variation,
            small=short_prompts(model),
        )
        content = await write_draft(
            model, messages, plan.user_input, max_tokens=caller.settings.max_tokens
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
            reservation_id=plan.reservation_id,
        )
        await emit(progress(item, "completed", postId=saved.post_id))
        await emit(
            Event.of(
                NumberedPostIds(
                    postId=saved.post_id,
                    conversationId=saved.conversation_id,
                    variationName=item.variation_name,
                ),
                name=f"post_{item.index}_post_ids",
            )
        )
        return BatchPost(
            index=item.index,
            postId=saved.post_id,
            conversationId=saved.conversation_id,
            content=content,
            variationName=item.variation_name,
            status="draft",
        )

    def failed(index: int, message: str) -> Event:
        return progress(items[index], "failed", error=message)

    async with Reservation(caller, plan.reserved, plan.reservation_id) as quota:
        at_once = drafts_at_once(model, caller.settings.batch_concurrency)
        runner = DraftRunner[BatchPost](quota, at_once)
        try:
            sources = await UrlContext(
                model, plan.user_input, allow_private=caller.settings.allow_private_urls
            ).read()
        except SocialgenError as error:  # the shared sources failed: every item fails
            runner.fail_all(list(items), error.message)
        else:
            jobs = {index: partial(write, item, sources) for index, item in items.items()}
            async for update in runner.run(jobs, failed):
                yield update
        summary = Summary(**runner.summary(total))
        errors = [
            BatchFailure(index=index, variationName=items[index].variation_name, message=message)
            for index, message in sorted(runner.failures.items())
        ]
        posts = runner.ordered_results()
        ranking = await asyncio.to_thread(_ranking, caller, posts)
        yield Event.of(
            BatchComplete(
                success=summary.generated > 0,
                originalPrompt=plan.user_input,
                isRegeneration=plan.is_regeneration,
                posts=posts,
                errors=errors,
                summary=summary,
                **({} if ranking is None else {"ranking": ranking}),
            )
        )
        verb = "Regenerated" if plan.is_regeneration else "Generated"
        text = f"{verb} {summary.generated} of {total} posts as drafts."
        if errors:
            text += f" {len(errors)} failed: " + "; ".join(e.message for e in errors[:3])
        yield Event.of(ChatDelta(text=text))


def _ranking(caller: Caller, posts: list[BatchPost]) -> BatchRanking | None:
    """The drafts' predicted order when the creator's ranker is confident. Its cost
    (numpy, training) only when the history is long enough for it to be."""
    from socialgen.insights.ranking import ranking_of_batch
    from socialgen.store.engine import read_session

    drafts = [(post.postId, post.content) for post in posts]
    with read_session(caller.engine) as session:
        found = ranking_of_batch(session, caller.workspace_id, drafts, caller.rankers)
    return None if found is None else BatchRanking(**found)
