"""The store side of bench/publish_networks.py: its schema, the posts it queues (with
a carousel where the network wants an image), and the publications as they settle."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from publish_networks_rigs import Ctx

SCHEMA = "socialgen_bench_networks"


@dataclass(frozen=True)
class Row:
    state: str
    due_at: datetime
    published_at: datetime | None


@dataclass(frozen=True)
class Media:
    """A carousel's files, saved once, that every post needing an image points at."""

    pdf: str
    image: str


def save_media(ctx: Ctx) -> Media:
    """The carousel's files, saved once in the file store the servers read."""
    from tests.pixelfed_support import png

    from socialgen.app.runtime import Runtime
    from socialgen.files.backends import files_of

    files = files_of(Runtime())
    media = Media("bench/carousel.pdf", "bench/slide-0.png")
    files.save(ctx.workspace_id, media.pdf, b"%PDF-1.4 bench")
    files.save(ctx.workspace_id, media.image, png("teal"))
    return media


def queue(ctx: Ctx, account_id: str, due: datetime, text: str, media: Media | None) -> str:
    """A post and its publication through `account_id`, due at `due`; its id."""
    from socialgen.kit.ids import new_id
    from socialgen.posts.service import create_draft
    from socialgen.store.engine import transaction
    from socialgen.store.tables import Carousel, CarouselSlide, Publication

    with transaction(ctx.engine) as session:
        post = create_draft(session, ctx.workspace_id, text)
        if media is not None:
            carousel_id = new_id()
            session.add(
                Carousel(
                    id=carousel_id,
                    workspace_id=ctx.workspace_id,
                    post_id=post.id,
                    name="Bench",
                    prompt="bench",
                    template="minimal",
                    pdf_file=media.pdf,
                    thumbnail_file=media.image,
                )
            )
            session.add(
                CarouselSlide(
                    carousel_id=carousel_id,
                    position=0,
                    title="Frame 1",
                    content="Small teams",
                    image_prompt="p",
                    image_file=media.image,
                )
            )
            post.carousel = {"carouselId": carousel_id}
            session.add(post)
        publication = Publication(
            workspace_id=ctx.workspace_id, post_id=post.id, account_id=account_id, due_at=due
        )
        session.add(publication)
        session.flush()
        return publication.id


def make_due(engine: Engine, ids: list[str], start: datetime, step: float) -> None:
    """The publications `ids` due at `start`, `step` seconds apart in their order."""
    from sqlalchemy import update
    from sqlmodel import col

    from socialgen.store.engine import transaction
    from socialgen.store.tables import Publication

    with transaction(engine) as session:
        for i, publication_id in enumerate(ids):
            session.connection().execute(
                update(Publication)
                .where(col(Publication.id) == publication_id)
                .values(due_at=start + timedelta(seconds=i * step))
            )


def settle(engine: Engine, ids: list[str], seconds: float) -> list[Row]:
    """The publications once every one is final, or as they are after `seconds`."""
    from sqlmodel import col, select

    from socialgen.store.engine import read_session
    from socialgen.store.tables import Publication
    from socialgen.store.tables.publishing import FINAL_STATES

    deadline = time.monotonic() + seconds
    while True:
        with read_session(engine) as session:
            found = {
                p.id: Row(p.state, p.due_at, p.published_at)
                for p in session.exec(select(Publication).where(col(Publication.id).in_(ids)))
            }
        rows = [found[i] for i in ids]
        if all(row.state in FINAL_STATES for row in rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.2)


def schema(database_url: str, *, create: bool) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        if create:
            connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    admin.dispose()
