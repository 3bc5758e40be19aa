"""The generate-post stream: one post, written as chat_delta, saved as a draft
(or a new version of the post being refined), then post_ids."""

from __future__ import annotations

from collections.abc import AsyncIterator

from socialgen.ai.model import TextModel
from socialgen.drafting.quota import Reservation
from socialgen.events import Event
from socialgen.generation.plan import PostPlan
from socialgen.generation.posting import PostRequest, PostWriting
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import chat_delta


async def run_generate_post(plan: PostPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    request = PostRequest(
        caller, plan.user_input, plan.conversation_id, plan.style, plan.history, plan.post_id
    )
    # Whatever stops us (error, cancel, disconnect), an unwritten post is refunded.
    async with Reservation(caller, plan.reserved, plan.reservation_id) as quota:
        sources = UrlContext(
            model, plan.user_input, allow_private=caller.settings.allow_private_urls
        )
        async for item in sources.process():
            yield item
        async for item in PostWriting(request, model, sources.text, chat_delta, quota):
            yield item
