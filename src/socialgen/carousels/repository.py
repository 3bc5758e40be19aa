"""Carousel rows, scoped to the caller's workspace (but for `owned_carousel_ids`: the
sweep at `serve`'s start runs for the whole store). Each function here is one
transaction and blocking: async callers run it in a thread."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from socialgen.drafting.persist import write_post
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import NotFound, SocialgenError
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Carousel, CarouselSlide, Post

CAROUSEL_NOT_FOUND = "Carousel not found"


class CarouselChanged(SocialgenError):
    """Another writer changed the carousel between reading and saving it."""

    def __init__(self) -> None:
        super().__init__("The carousel changed while it was being updated", status_code=409)


@dataclass(frozen=True)
class CarouselRecord:
    carousel: Carousel
    slides: list[CarouselSlide]


def get_carousel(session: Session, workspace_id: str, carousel_id: str) -> Carousel:
    carousel = session.exec(
        select(Carousel).where(
            col(Carousel.id) == carousel_id, col(Carousel.workspace_id) == workspace_id
        )
    ).first()
    if carousel is None:
        raise NotFound(CAROUSEL_NOT_FOUND)
    return carousel


def carousel_slides(session: Session, carousel_id: str) -> list[CarouselSlide]:
    return list(
        session.exec(
            select(CarouselSlide)
            .where(col(CarouselSlide.carousel_id) == carousel_id)
            .order_by(col(CarouselSlide.position))
        )
    )


def load_carousel(engine: Engine, workspace_id: str, carousel_id: str) -> CarouselRecord:
    with read_session(engine) as session:
        carousel = get_carousel(session, workspace_id, carousel_id)
        slides = carousel_slides(session, carousel.id)
        session.expunge_all()
    return CarouselRecord(carousel, slides)


def list_carousels(engine: Engine, workspace_id: str, limit: int = 50) -> list[Carousel]:
    with read_session(engine) as session:
        rows = list(
            session.exec(
                select(Carousel)
                .where(col(Carousel.workspace_id) == workspace_id)
                .order_by(col(Carousel.created_at).desc())
                .limit(limit)
            )
        )
        session.expunge_all()
    return rows


def owned_carousel_ids(engine: Engine, carousel_ids: Sequence[str]) -> set[str]:
    """Those of `carousel_ids` that a carousel of any workspace has."""
    with read_session(engine) as session:
        return set(
            session.exec(select(Carousel.id).where(col(Carousel.id).in_(list(carousel_ids))))
        )


def save_new_carousel(
    engine: Engine,
    record: CarouselRecord,
    *,
    user_id: str | None,
    prompt: str,
    caption: str,
    reference: dict[str, Any],
    reservation_id: str | None = None,
) -> str:
    """The carousel, its slides and its draft post (postType carousel, the caption as
    its text), all in one transaction (the post spends `reservation_id`); returns the
    post id."""
    carousel = record.carousel
    with transaction(engine) as session:
        post = write_post(
            session,
            workspace_id=carousel.workspace_id,
            user_id=user_id,
            conversation_id=None,
            user_input=prompt,
            content=caption,
            title=carousel.name,
            meta={"source": "carousel", "carouselId": carousel.id},
            post_type="carousel",
            reservation_id=reservation_id,
        )
        carousel.post_id = post.id
        session.add(carousel)
        session.flush()
        session.add_all(record.slides)
        post.carousel = reference
        session.add(post)
        session.flush()
        session.expunge_all()
        return post.id


def save_slide_change(
    engine: Engine,
    updated: CarouselRecord,
    *,
    read_at: datetime,
    reference: dict[str, Any],
) -> None:
    """Store a regenerated slide and the new PDF and thumbnail, unless the carousel
    changed since `read_at` (then CarouselChanged: render again from fresh rows)."""
    carousel = updated.carousel
    with transaction(engine) as session:
        current = session.exec(
            select(Carousel)
            .where(
                col(Carousel.id) == carousel.id,
                col(Carousel.workspace_id) == carousel.workspace_id,
            )
            .with_for_update()
        ).first()
        if current is None:
            raise NotFound(CAROUSEL_NOT_FOUND)
        if current.updated_at != read_at:
            raise CarouselChanged()
        now = utcnow()
        current.pdf_file = carousel.pdf_file
        current.thumbnail_file = carousel.thumbnail_file
        current.updated_at = now
        session.add(current)
        for slide in updated.slides:
            stored = session.get(CarouselSlide, slide.id)
            if stored is not None and (
                stored.image_file != slide.image_file or stored.image_prompt != slide.image_prompt
            ):
                stored.image_file = slide.image_file
                stored.image_prompt = slide.image_prompt
                stored.updated_at = now
                session.add(stored)
        if current.post_id is not None:
            post = session.get(Post, current.post_id)
            if post is not None:
                post.carousel = reference
                session.add(post)
        session.flush()
