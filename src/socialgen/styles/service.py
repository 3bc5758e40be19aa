"""Content styles and their example posts. Scoped to one workspace here; never commits.
The queries are `repository.py`'s.

Every change to a style's examples "trains" it again: the style profile is
derived from all its examples and stored with the style.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.kit.limits import MAX_POST_CHARS, MAX_STYLE_POSTS_PER_CALL
from socialgen.store.tables import ContentStyle, StylePost
from socialgen.styles import repository
from socialgen.styles.schemas import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    NAME_REQUIRED,
    POSTS_REQUIRED,
    ContentStyleView,
    StylePostView,
)
from socialgen.workspaces.service import workspace_owner

STYLE_NOT_FOUND = "Content style not found"
STYLE_POST_NOT_FOUND = "Style post not found"


def create_style(
    session: Session,
    workspace_id: str,
    name: str | None,
    description: str | None = None,
    *,
    user_id: str | None = None,
) -> ContentStyle:
    style = ContentStyle(
        workspace_id=workspace_id,
        user_id=user_id or workspace_owner(session, workspace_id),
        name=_name(name),
        description=_description(description),
    )
    session.add(style)
    session.flush()
    return style


def list_styles(session: Session, workspace_id: str) -> list[ContentStyle]:
    return repository.styles_of(session, workspace_id)


def get_style(session: Session, workspace_id: str, style_id: str) -> ContentStyle:
    style = repository.style_in(session, workspace_id, style_id.strip())
    if style is None:
        raise NotFound(STYLE_NOT_FOUND)
    return style


def update_style(
    session: Session,
    workspace_id: str,
    style_id: str,
    *,
    name: str | None = None,
    description: str | None = None,
) -> ContentStyle:
    """Change what is given; a given name must not be blank."""
    style = get_style(session, workspace_id, style_id)
    if name is not None:
        style.name = _name(name)
    if description is not None:
        style.description = _description(description)
    style.updated_at = utcnow()
    session.add(style)
    session.flush()
    return style


def delete_style(session: Session, workspace_id: str, style_id: str) -> None:
    session.delete(get_style(session, workspace_id, style_id))  # examples cascade
    session.flush()


def style_posts(session: Session, style_id: str) -> list[StylePost]:
    return repository.posts_of_style(session, style_id)


def add_posts(session: Session, workspace_id: str, style_id: str, posts: Any) -> list[StylePost]:
    """Add up to 5 example posts (all or nothing) and train the style on them."""
    texts = _example_texts(posts)
    style = get_style(session, workspace_id, style_id)
    now = utcnow()
    # A microsecond apart, so examples added together keep the order they were given in.
    added = [
        StylePost(style_id=style.id, content=text, created_at=now + timedelta(microseconds=n))
        for n, text in enumerate(texts)
    ]
    session.add_all(added)
    session.flush()
    train(session, style)
    return added


def update_post(
    session: Session, workspace_id: str, style_id: str, post_id: str, content: str | None
) -> StylePost:
    text = _example_text(content, "content")
    style = get_style(session, workspace_id, style_id)
    post = _style_post(session, style.id, post_id)
    post.content = text
    post.updated_at = utcnow()
    session.add(post)
    session.flush()
    train(session, style)
    return post


def delete_post(session: Session, workspace_id: str, style_id: str, post_id: str) -> None:
    style = get_style(session, workspace_id, style_id)
    session.delete(_style_post(session, style.id, post_id))
    session.flush()
    train(session, style)


def train(session: Session, style: ContentStyle) -> None:
    """Derive the style profile from all the style's examples and store it."""
    from socialgen.styles.profile import derive_profile, profile_to_dict

    examples = [post.content for post in style_posts(session, style.id)]
    style.profile = profile_to_dict(derive_profile(examples)) if examples else None
    style.updated_at = utcnow()
    session.add(style)
    session.flush()


def style_views(session: Session, styles: list[ContentStyle]) -> list[ContentStyleView]:
    """Several styles with their examples, in two queries whatever their number."""
    if not styles:
        return []
    by_style: dict[str, list[StylePost]] = {style.id: [] for style in styles}
    for post in repository.posts_of_styles(session, list(by_style)):
        by_style[post.style_id].append(post)
    return [_view(style, by_style[style.id]) for style in styles]


def style_view(session: Session, style: ContentStyle) -> ContentStyleView:
    return _view(style, style_posts(session, style.id))


def _view(style: ContentStyle, posts: list[StylePost]) -> ContentStyleView:
    return ContentStyleView(
        id_=style.id,
        name=style.name,
        description=style.description,
        workspaceId=style.workspace_id,
        userId=style.user_id,
        posts=[post_view(post) for post in posts],
        createdAt=iso(style.created_at) or "",
        updatedAt=iso(style.updated_at) or "",
    )


def post_view(post: StylePost) -> StylePostView:
    return StylePostView(id_=post.id, content=post.content)


def _style_post(session: Session, style_id: str, post_id: str) -> StylePost:
    post = repository.style_post_in(session, style_id, post_id.strip())
    if post is None:
        raise NotFound(STYLE_POST_NOT_FOUND)
    return post


def _example_texts(posts: Any) -> list[str]:
    if not isinstance(posts, list) or not posts:
        raise BadRequest(POSTS_REQUIRED)
    if len(posts) > MAX_STYLE_POSTS_PER_CALL:
        raise BadRequest(
            f"At most {MAX_STYLE_POSTS_PER_CALL} posts can be added per call ({len(posts)} given)"
        )
    return [_example_text(post, f"Post {n}") for n, post in enumerate(posts, start=1)]


def _example_text(text: Any, what: str) -> str:
    if not isinstance(text, str):
        raise BadRequest(f"{what} must be a string")
    cleaned = text.strip()
    if not cleaned:
        raise BadRequest(f"{what} is empty" if what != "content" else "Content is required")
    if len(cleaned) > MAX_POST_CHARS:
        raise BadRequest(f"{what} exceeds the character limit of {MAX_POST_CHARS} characters")
    return cleaned


def _name(name: str | None) -> str:
    cleaned = (name or "").strip()
    if not cleaned:
        raise BadRequest(NAME_REQUIRED)
    if len(cleaned) > MAX_NAME_CHARS:
        raise BadRequest(f"Content style name is longer than {MAX_NAME_CHARS} characters")
    return cleaned


def _description(description: str | None) -> str | None:
    cleaned = (description or "").strip() or None
    if cleaned and len(cleaned) > MAX_DESCRIPTION_CHARS:
        raise BadRequest(f"Description is longer than {MAX_DESCRIPTION_CHARS} characters")
    return cleaned
