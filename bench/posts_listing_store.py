"""The store posts_listing.py measures: 100,000 posts written as a real store grows,
and the SQL the two listings run (captured as it runs, for EXPLAIN QUERY PLAN).
Not run on its own."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, col, select

from socialgen.kit.clock import utcnow
from socialgen.kit.limits import POST_WINDOW_DAYS
from socialgen.posts.views import PostListJson, snippet
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import PostStatus, Workspace
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from socialgen.workspaces.service import create_workspace, default_workspace

OTHER_WORKSPACE_NAME = "bench-other"
Listing = Callable[..., PostListJson]  # (session, workspace_id, *, limit=, cursor=)


@dataclass(frozen=True)
class Plan:
    """How many posts of each kind a workspace gets."""

    total: int
    window_drafts: int
    window_published: int
    window_scheduled_future: int
    window_scheduled_past: int

    @property
    def in_window(self) -> int:
        return (
            self.window_drafts
            + self.window_published
            + self.window_scheduled_future
            + self.window_scheduled_past
        )


@dataclass
class Workspaces:
    main: str
    other: str
    owner_email: str = LOCAL_OWNER_EMAIL


def plan_for(total: int, in_window: int) -> Plan:
    drafts = in_window * 40 // 100
    published = in_window * 40 // 100
    future = in_window * 15 // 100
    return Plan(total, drafts, published, future, in_window - drafts - published - future)


SAMPLE_TEXT = (
    "shipping weekly beats shipping perfect; customers notice momentum, teams feel it, "
    "and the roadmap stops being a wish list. Here is what we learned after a year of "
    "small releases, honest retros, fewer meetings and more writing. Hiring for curiosity "
    "over credentials changed our onboarding, our code reviews and our support queue."
)
WORDS = SAMPLE_TEXT.split()


def content_pool(rng: random.Random, size: int = 400) -> list[str]:
    pool = []
    for index in range(size):
        length = rng.randint(40, 220)
        words = [rng.choice(WORDS) for _ in range(length)]
        first = " ".join(words[:12]).capitalize()
        pool.append(f"Lesson {index}: {first}\n\n" + " ".join(words[12:]))
    return pool


def post_rows(
    rng: random.Random, workspace_id: str, plan: Plan, now: datetime, owner_id: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Conversation rows and post rows for one workspace, timeline_at set as
    Post.place_on_timeline() would (published_at / scheduled_at / updated_at)."""
    pool = content_pool(rng)
    kinds: list[tuple[PostStatus, float, float]] = []  # (status, min age, max age in days)
    kinds += [(PostStatus.DRAFT, 0.01, 80)] * plan.window_drafts
    kinds += [(PostStatus.PUBLISHED, 0.01, 80)] * plan.window_published
    kinds += [(PostStatus.SCHEDULED, -60, -0.5)] * plan.window_scheduled_future
    kinds += [(PostStatus.SCHEDULED, 0.5, 80)] * plan.window_scheduled_past
    for _ in range(plan.total - plan.in_window):
        roll = rng.random()
        status = (
            PostStatus.PUBLISHED
            if roll < 0.6
            else PostStatus.DRAFT
            if roll < 0.9
            else PostStatus.SCHEDULED
        )
        kinds.append((status, 120, 1500))

    conversations: list[dict[str, Any]] = []
    posts: list[dict[str, Any]] = []
    for status, low, high in kinds:
        moment = now - timedelta(days=rng.uniform(low, high))
        created = min(moment, now) - timedelta(days=rng.uniform(0, 5))
        text = rng.choice(pool)
        conversation_id: str | None = None
        if rng.random() < 0.4:
            conversation_id = new_id(rng)
            conversations.append(
                {
                    "id": conversation_id,
                    "workspace_id": workspace_id,
                    "user_id": owner_id,
                    "title": snippet(text)[:300],
                    "status": "active",
                    "metadata": {},
                    "current_content": text,
                    "created_at": created,
                    "updated_at": created,
                }
            )
        published = status == PostStatus.PUBLISHED
        scheduled = status in (PostStatus.SCHEDULED, PostStatus.PUBLISHED)
        has_carousel = rng.random() < 0.05
        posts.append(
            {
                "id": new_id(rng),
                "workspace_id": workspace_id,
                "conversation_id": conversation_id,
                "content": text,
                "post_type": "carousel" if has_carousel else "text",
                "status": str(status),
                "variation_name": None,
                "created_at": created,
                "updated_at": moment,
                "scheduled_at": moment if scheduled else None,
                "published_at": moment if published else None,
                "timeline_at": moment,
                "post_url": f"https://www.linkedin.com/feed/update/{len(posts)}"
                if published
                else None,
                "social_account_name": "Ada Lovelace" if published else None,
                "social_account_email": "ada@example.com" if published else None,
                "likes": rng.randint(0, 500) if published else 0,
                "comments": rng.randint(0, 60) if published else 0,
                "carousel": (
                    {
                        "id": f"car-{len(posts)}",
                        "name": "Deck",
                        "thumbnailUrl": "https://cdn.example.com/t.png",
                        "pdfUrl": "https://cdn.example.com/d.pdf",
                    }
                    if has_carousel
                    else None
                ),
                "infographic": None,
                "generated_headshot": None,
                "custom_image": None,
            }
        )
    # A store grows as posts are written: insert in creation order, as it would.
    conversations.sort(key=lambda row: row["created_at"])
    posts.sort(key=lambda row: row["created_at"])
    return conversations, posts


def new_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


def insert_bulk(engine: Engine, table_name: str, rows: list[dict[str, Any]]) -> None:
    table = SQLModel.metadata.tables[table_name]
    batch = 10_000
    with engine.begin() as connection:
        for start in range(0, len(rows), batch):
            connection.execute(sa.insert(table), rows[start : start + batch])


def find_workspaces(engine: Engine) -> Workspaces | None:
    with read_session(engine) as session:
        main = default_workspace(session)
        other = session.exec(
            select(Workspace).where(col(Workspace.name) == OTHER_WORKSPACE_NAME)
        ).first()
        if main is None or other is None:
            return None
        return Workspaces(main=main.id, other=other.id)


def build_store(engine: Engine, plan: Plan, other_plan: Plan, seed: int) -> Workspaces:
    from socialgen.store.tables import User

    with transaction(engine) as session:
        main = default_workspace(session)
        assert main is not None, "open_store() creates the default workspace"
        other = create_workspace(session, OTHER_WORKSPACE_NAME)
        owner = session.exec(select(User).where(col(User.email) == LOCAL_OWNER_EMAIL)).one()
        main_id, other_id, owner_id = main.id, other.id, owner.id
    rng = random.Random(seed)
    now = utcnow()
    conversations, posts = post_rows(rng, main_id, plan, now, owner_id)
    more_conversations, more_posts = post_rows(rng, other_id, other_plan, now, None)
    insert_bulk(engine, "conversation", conversations + more_conversations)
    insert_bulk(engine, "post", posts + more_posts)
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    return Workspaces(main=main_id, other=other_id)


def window_counts(engine: Engine, workspace_id: str) -> tuple[int, int, int]:
    """(all posts, posts in the 90-day window, scheduled+published in the window)."""
    start = utcnow() - timedelta(days=POST_WINDOW_DAYS)
    post = SQLModel.metadata.tables["post"]
    in_ws = post.c.workspace_id == workspace_id
    in_window = sa.and_(in_ws, post.c.timeline_at >= start)
    shown = sa.and_(in_window, post.c.status.in_([PostStatus.SCHEDULED, PostStatus.PUBLISHED]))
    with engine.connect() as connection:

        def count(where: sa.ColumnElement[bool]) -> int:
            return int(connection.execute(sa.select(sa.func.count()).where(where)).scalar_one())

        return count(in_ws), count(in_window), count(shown)


@dataclass
class CapturedQuery:
    sql: str
    parameters: tuple[Any, ...]
    statement: Any = None  # the sa.Select that the listing executed (posts.repository_listing)


@contextmanager
def capture_sql(engine: Engine) -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    seen: list[tuple[str, tuple[Any, ...]]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((statement, tuple(parameters)))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


class _RecordingConnection:
    def __init__(self, real: sa.Connection, sink: list[Any]) -> None:
        self._real = real
        self._sink = sink

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        self._sink.append(statement)
        return self._real.execute(statement, *args, **kwargs)


class _RecordingSession:
    """Stands in for a Session to catch the statement posts.repository_listing builds."""

    def __init__(self, real: Session) -> None:
        self._real = real
        self.statements: list[Any] = []

    def connection(self) -> _RecordingConnection:
        return _RecordingConnection(self._real.connection(), self.statements)


def capture_listing_query(engine: Engine, listing: Listing, workspace_id: str) -> CapturedQuery:
    with capture_sql(engine) as seen, read_session(engine) as session:
        recorder = _RecordingSession(session)
        listing(cast(Session, recorder), workspace_id)
    sql, parameters = next((s, p) for s, p in seen if "FROM post" in s)
    return CapturedQuery(sql, parameters, recorder.statements[-1])


def explain(database: Path, query: CapturedQuery) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("EXPLAIN QUERY PLAN " + query.sql, query.parameters).fetchall()
    return [f"  {'  ' * depth_of(rows, row)}{row[3]}" for row in rows]


def depth_of(rows: Sequence[tuple[Any, ...]], row: tuple[Any, ...]) -> int:
    parents = {r[0]: r[1] for r in rows}
    depth, parent = 0, row[1]
    while parent in parents:
        depth, parent = depth + 1, parents[parent]
    return depth
