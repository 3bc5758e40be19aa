"""The one statement the preview adds: how many slides a post's carousel has (the
outbox sends its first ones as images; the preview says how many stay behind). Takes
the caller's session, never commits."""

from __future__ import annotations

from sqlmodel import Session, col, func, select

from socialgen.store.tables import Carousel, CarouselSlide


def carousel_slides(session: Session, workspace_id: str, post_id: str) -> int:
    """The number of slides of the carousel the post carries (0: none)."""
    count = session.exec(
        select(func.count())
        .select_from(CarouselSlide)
        .join(Carousel, col(Carousel.id) == col(CarouselSlide.carousel_id))
        .where(col(Carousel.workspace_id) == workspace_id, col(Carousel.post_id) == post_id)
    ).one()
    return int(count)
