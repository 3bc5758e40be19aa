"""Shared by the evergreen tests: a published original with its publication (and its
numbers), plans set through the service, a preparation pass on the scripted model."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import select

from socialgen.kit.clock import utcnow
from socialgen.posts.service import create_draft
from socialgen.publishing.evergreen.plans import Terms, set_plan
from socialgen.publishing.evergreen.prepare import prepare_due
from socialgen.publishing.evergreen.schemas import PrepareData
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import (
    EvergreenPlan,
    EvergreenRun,
    MetricSnapshot,
    Post,
    PostStatus,
    Publication,
    PublicationState,
)
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedModel

ORIGINAL = (
    "Shipping small changes every week beats planning one big launch.\n\n"
    "Our team cut release risk by shipping weekly: smaller diffs, faster feedback, "
    "calmer Fridays.\n\nWhat keeps your team from shipping weekly?"
)
UTC = ZoneInfo("UTC")


def published(
    store: Store,
    account_ids: list[str],
    content: str = ORIGINAL,
    *,
    days_ago: float = 10,
    likes: int | None = None,
) -> str:
    """A post published `days_ago` to these accounts (a publication each), with a
    reading of `likes` when given."""
    when = utcnow() - timedelta(days=days_ago)
    with transaction(store.engine) as session:
        post = create_draft(session, store.workspace_id, content)
        post.status, post.scheduled_at, post.published_at = PostStatus.PUBLISHED, when, when
        post.place_on_timeline()
        session.add(post)
        for number, account_id in enumerate(account_ids):
            publication = Publication(
                workspace_id=store.workspace_id,
                post_id=post.id,
                account_id=account_id,
                state=PublicationState.PUBLISHED,
                due_at=when,
                published_at=when,
                remote_id=f"remote-{post.id}-{number}",
            )
            session.add(publication)
            session.flush()
            if likes is not None:
                session.add(
                    MetricSnapshot(
                        publication_id=publication.id, post_id=post.id, taken_at=when, likes=likes
                    )
                )
        return post.id


def plan(
    store: Store,
    post_id: str,
    *,
    every: int = 7,
    times: int | None = 3,
    until: datetime | None = None,
    to: tuple[str, ...] = (),
    first: datetime | None = None,
    zone: ZoneInfo = UTC,
) -> EvergreenPlan:
    with transaction(store.engine) as session:
        return set_plan(
            session, store.workspace_id, post_id, Terms(every, times, until, to, first), zone
        )


def prepare(
    store: Store, model: ScriptedModel, *, force: bool = False, now: datetime | None = None
) -> PrepareData:
    return asyncio.run(
        prepare_due(
            store.engine,
            lambda: model,
            worker="test-preparer",
            max_tokens=700,
            force=force,
            now=now,
        )
    )


def plan_row(store: Store, post_id: str) -> EvergreenPlan:
    with read_session(store.engine) as session:
        found = session.exec(select(EvergreenPlan).where(EvergreenPlan.post_id == post_id)).one()
        return found


def runs(store: Store, plan_id: str) -> list[EvergreenRun]:
    with read_session(store.engine) as session:
        return list(
            session.exec(
                select(EvergreenRun)
                .where(EvergreenRun.plan_id == plan_id)
                .order_by(EvergreenRun.number)  # type: ignore[arg-type]
            ).all()
        )


def post_row(store: Store, post_id: str) -> Post:
    with read_session(store.engine) as session:
        found = session.get(Post, post_id)
        assert found is not None
        return found


def publications_of(store: Store, post_id: str) -> list[Publication]:
    with read_session(store.engine) as session:
        return list(session.exec(select(Publication).where(Publication.post_id == post_id)).all())


def due_in(store: Store, post_id: str, when: timedelta) -> None:
    """Move the plan's next run (and a run being written) to now + `when`."""
    moment = utcnow() + when
    with transaction(store.engine) as session:
        row = session.exec(select(EvergreenPlan).where(EvergreenPlan.post_id == post_id)).one()
        row.next_at = moment
        for run in session.exec(
            select(EvergreenRun).where(
                EvergreenRun.plan_id == row.id, EvergreenRun.number == row.next_number
            )
        ).all():
            run.due_at = moment
            session.add(run)
        session.add(row)


def as_json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
