"""Everything checked and resolved before a generation starts: input, conversation,
post ids, style and quota. A refusal here happens before any work and before a
stream opens, so HTTP can still answer it with a status code."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import Session

from socialgen.app.caller import Caller
from socialgen.drafting.persist import history
from socialgen.drafting.prompts import variations
from socialgen.generation.batch_events import BATCH_SIZE
from socialgen.generation.schemas import (
    USER_INPUT_REQUIRED,
    BatchRequest,
    ChatRequest,
    GeneratePostRequest,
)
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.kit.limits import MAX_INPUT_CHARS
from socialgen.posts.repository import conversation_id_in, drafts_by_id, latest_editable_post_id
from socialgen.posts.rules import ensure_editable
from socialgen.posts.service import get_post
from socialgen.store.engine import transaction
from socialgen.store.tables import Post
from socialgen.styles.guide import style_guide
from socialgen.workspaces.usage import reserve_posts


@dataclass(frozen=True)
class ChatPlan:
    caller: Caller
    user_input: str
    conversation_id: str | None
    style: str | None
    history: list[dict[str, str]] = field(default_factory=list)
    # Nothing is reserved up front: the chat reserves a post in the stream, only when
    # it writes one (and gives it back there).
    reservation_id: None = None


@dataclass(frozen=True)
class PostPlan:
    caller: Caller
    user_input: str
    conversation_id: str | None
    post_id: str | None
    style: str | None
    reservation_id: str  # the quota ledger row (workspaces/usage.py)
    history: list[dict[str, str]] = field(default_factory=list)
    reserved: int = 1


@dataclass(frozen=True)
class BatchItem:
    index: int  # 1-based
    variation_name: str
    instruction: str
    post_id: str | None = None  # set when regenerating
    conversation_id: str | None = None


@dataclass(frozen=True)
class BatchPlan:
    caller: Caller
    user_input: str
    style: str | None
    items: list[BatchItem]
    is_regeneration: bool
    reservation_id: str  # the quota ledger row (workspaces/usage.py)

    @property
    def reserved(self) -> int:
        return len(self.items)


def prepare_chat(caller: Caller, request: ChatRequest) -> ChatPlan:
    user_input = _user_input(request.userInput)
    with transaction(caller.engine) as session:
        style = style_guide(session, caller.workspace_id, request.contentStyleId, user_input)
        conversation_id = _conversation_id(session, caller.workspace_id, request.conversationId)
        past = history(session, conversation_id) if conversation_id else []
    return ChatPlan(caller, user_input, conversation_id, style, past)


def prepare_post(caller: Caller, request: GeneratePostRequest) -> PostPlan:
    user_input = _user_input(request.userInput)
    with transaction(caller.engine) as session:
        style = style_guide(session, caller.workspace_id, request.contentStyleId, user_input)
        conversation_id = _conversation_id(session, caller.workspace_id, request.conversationId)
        post_id = None
        if request.postId:
            post = get_post(session, caller.workspace_id, request.postId.strip())
            ensure_editable(post)
            post_id = post.id
            conversation_id = conversation_id or post.conversation_id
        elif conversation_id:
            post_id = latest_editable_post_id(session, caller.workspace_id, conversation_id)
        past = history(session, conversation_id) if conversation_id else []
        reservation_id = reserve_posts(session, caller.workspace_id, 1)
    return PostPlan(caller, user_input, conversation_id, post_id, style, reservation_id, past)


def prepare_batch(caller: Caller, request: BatchRequest) -> BatchPlan:
    user_input = _user_input(request.userInput)
    named = variations()
    with transaction(caller.engine) as session:
        style = style_guide(session, caller.workspace_id, request.contentStyleId, user_input)
        if request.postIds is None:
            items = [
                BatchItem(index=n, variation_name=name, instruction=instruction)
                for n, (name, instruction) in enumerate(named, start=1)
            ]
        else:
            drafts = _drafts_to_regenerate(session, caller.workspace_id, request.postIds)
            instructions = dict(named)
            items = []
            for n, post in enumerate(drafts, start=1):
                name = post.variation_name or named[(n - 1) % len(named)][0]
                items.append(
                    BatchItem(
                        index=n,
                        variation_name=name,
                        instruction=instructions.get(name, ""),
                        post_id=post.id,
                        conversation_id=post.conversation_id,
                    )
                )
        reservation_id = reserve_posts(session, caller.workspace_id, len(items))
    return BatchPlan(caller, user_input, style, items, request.postIds is not None, reservation_id)


def _user_input(text: str | None) -> str:
    cleaned = (text or "").strip()
    if not cleaned:
        raise BadRequest(USER_INPUT_REQUIRED)
    if len(cleaned) > MAX_INPUT_CHARS:
        raise BadRequest(f"userInput is longer than {MAX_INPUT_CHARS} characters")
    return cleaned


def _conversation_id(
    session: Session, workspace_id: str, conversation_id: str | None
) -> str | None:
    if conversation_id is None or not conversation_id.strip():
        return None
    found = conversation_id_in(session, workspace_id, conversation_id.strip())
    if found is None:
        raise NotFound("Conversation not found")
    return found


def _drafts_to_regenerate(session: Session, workspace_id: str, post_ids: list[str]) -> list[Post]:
    wanted = list(dict.fromkeys(pid.strip() for pid in post_ids if pid and pid.strip()))
    if not wanted:
        raise BadRequest("postIds must list at least one post id")
    if len(wanted) > BATCH_SIZE:
        raise BadRequest(f"At most {BATCH_SIZE} posts can be regenerated at once")
    found = drafts_by_id(session, workspace_id, wanted)
    missing = [pid for pid in wanted if pid not in found]
    if missing:
        raise BadRequest("Some posts not found or not in draft status: " + ", ".join(missing))
    return [found[pid] for pid in wanted]
