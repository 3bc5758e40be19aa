"""The write side of posts. Every post is found through its workspace
(posts.repository, which holds the queries), so a post of workspace A is "not
found" from workspace B. Never commits."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlparse

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.posts.conversations import (
    conversation_title,
    delete_conversation,
    follow_content,
    start_conversation,
)
from socialgen.posts.repository import (
    delete_post_and_versions,
    latest_version_number,
    lock_publications_of_post,
    post_in_workspace,
    versions_in_order,
)
from socialgen.posts.rules import (
    edit_refused,
    ensure_deletable,
    ensure_editable,
    unsettled,
    valid_content,
)
from socialgen.posts.schemas import DeletedPost, PostDetail
from socialgen.posts.views import post_view, snippet
from socialgen.store.tables import Post, PostStatus, PostVersion

POST_NOT_FOUND = "Post not found"


def get_post(session: Session, workspace_id: str, post_id: str) -> Post:
    post = post_in_workspace(session, workspace_id, post_id)
    if post is None:
        raise NotFound(POST_NOT_FOUND)
    return post


def create_draft(
    session: Session,
    workspace_id: str,
    content: str,
    *,
    conversation_id: str | None = None,
    title: str | None = None,
    user_id: str | None = None,
    post_type: str = "text",
    variation_name: str | None = None,
    source: str = "generated",
) -> Post:
    """A draft with its first version; starts a conversation unless one is given."""
    text = valid_content(content)
    if conversation_id is None:
        conversation = start_conversation(
            session,
            workspace_id,
            user_id=user_id,
            title=title or snippet(text),
            current_content=text,
        )
        conversation_id = conversation.id
    post = Post(
        workspace_id=workspace_id,
        conversation_id=conversation_id,
        content=text,
        post_type=post_type,
        variation_name=variation_name,
    )
    post.place_on_timeline()
    session.add(post)
    session.flush()
    _add_version(session, post, source)
    return post


def update_content(
    session: Session,
    workspace_id: str,
    post_id: str,
    content: str | None,
    *,
    source: str = "edit",
) -> Post:
    """New content for a draft or scheduled post: a new version, and the
    conversation's current content follows. Refused (409) while a publication of the
    post may be live with the text it sent and is not settled (rules.unsettled)."""
    text = valid_content(content)
    post = get_post(session, workspace_id, post_id)
    ensure_editable(post)
    ensure_no_unsettled_publication(session, post.id)
    now = utcnow()
    post.content = text
    post.updated_at = now
    post.place_on_timeline()
    session.add(post)
    if post.conversation_id is not None:
        follow_content(session, workspace_id, post.conversation_id, text, now)
    session.flush()
    _add_version(session, post, source)
    return post


def ensure_no_unsettled_publication(session: Session, post_id: str) -> None:
    """The 409 of rules.edit_refused when a publication of the post is unsettled. The
    rows are locked (PostgreSQL): a worker claiming one meanwhile either waits for this
    transaction (and reads the new text) or is waited for (and this sees `publishing`)."""
    for publication, account in lock_publications_of_post(session, post_id):
        if unsettled(publication):
            raise edit_refused(post_id, publication, account)


def delete_post(session: Session, workspace_id: str, post_id: str) -> DeletedPost:
    """Delete a draft or scheduled post, its versions and its conversation."""
    post = get_post(session, workspace_id, post_id)
    ensure_deletable(post)
    result = DeletedPost(
        deletedPostId=post.id,
        deletedConversationId=post.conversation_id,
        postType=post.post_type,
        status=post.status,
    )
    delete_post_and_versions(session, post.id)
    if post.conversation_id is not None:
        delete_conversation(session, workspace_id, post.conversation_id)
    session.expunge(post)
    session.flush()
    return result


def schedule(
    session: Session, workspace_id: str, post_id: str, at: datetime, now: datetime | None = None
) -> Post:
    post = get_post(session, workspace_id, post_id)
    if post.status == PostStatus.PUBLISHED:
        raise BadRequest("Cannot schedule a published post")
    if at <= (now or utcnow()):
        raise BadRequest(f"The scheduled time must be in the future (got {iso(at)})")
    post.status = PostStatus.SCHEDULED
    post.scheduled_at = at
    return _moved(session, post)


def unschedule(session: Session, workspace_id: str, post_id: str) -> Post:
    post = get_post(session, workspace_id, post_id)
    if post.status != PostStatus.SCHEDULED:
        raise BadRequest(f"Only scheduled posts can be unscheduled (this post is {post.status})")
    post.status = PostStatus.DRAFT
    post.scheduled_at = None
    post.updated_at = utcnow()
    return _moved(session, post)


def mark_published(
    session: Session, workspace_id: str, post_id: str, url: str | None = None
) -> Post:
    """scheduled -> published; published is final."""
    post = get_post(session, workspace_id, post_id)
    if post.status != PostStatus.SCHEDULED:
        raise BadRequest(
            f"Only scheduled posts can be marked as published (this post is {post.status}): "
            "schedule it first"
        )
    if url is not None:
        post.post_url = _valid_post_url(url)
    post.status = PostStatus.PUBLISHED
    post.published_at = utcnow()
    return _moved(session, post)


def show_post(session: Session, workspace_id: str, post_id: str) -> PostDetail:
    post = get_post(session, workspace_id, post_id)
    title = None
    if post.conversation_id is not None:
        title = conversation_title(session, workspace_id, post.conversation_id)
    versions = versions_in_order(session, post.id)
    return PostDetail.model_validate(
        {
            **post_view(post, title),
            "updatedAt": iso(post.updated_at) or "",
            "publishedAt": iso(post.published_at),
            "variationName": post.variation_name,
            "versions": [
                {
                    "version": v.version,
                    "content": v.content,
                    "source": v.source,
                    "createdAt": iso(v.created_at) or "",
                }
                for v in versions
            ],
        }
    )


def _moved(session: Session, post: Post) -> Post:
    post.place_on_timeline()
    session.add(post)
    session.flush()
    return post


def _add_version(session: Session, post: Post, source: str) -> None:
    latest = latest_version_number(session, post.id)
    session.add(
        PostVersion(post_id=post.id, version=(latest or 0) + 1, content=post.content, source=source)
    )
    session.flush()


def _valid_post_url(url: str) -> str:
    url = url.strip()
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or len(url) > 2048:
        raise BadRequest(f"Not a valid http(s) URL: {url!r}")
    return url
