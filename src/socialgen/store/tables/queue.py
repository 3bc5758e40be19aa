"""The posting queue: weekly slots per workspace (and per account), and the posts in them.

A `PostingQueue` is the workspace's own (account_id null) or one account's; its
`QueueSlot`s are local wall times ("Tue 08:30") in the queue's zone. A post put in the
queue is an ordinary scheduled post at its slot's moment, with its publications in the
outbox; its `QueueEntry` only says which queue and slot it took, so the queue can list,
move and close gaps. One post per slot moment and queue: the unique (queue_id, due_at)
keeps two writers from taking the same slot.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, ForeignKey, Index, String, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class PostingQueue(SQLModel, table=True):
    __tablename__ = "posting_queue"
    __table_args__ = (
        # One queue per account; NULLs are distinct in a unique constraint, so the
        # workspace's own queue (no account) is kept single by a partial index.
        UniqueConstraint("workspace_id", "account_id", name="uq_posting_queue_account"),
        Index(
            "uq_posting_queue_workspace",
            "workspace_id",
            unique=True,
            sqlite_where=text("account_id IS NULL"),
            postgresql_where=text("account_id IS NULL"),
        ),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False)
    )
    account_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64),
            ForeignKey("social_account.id", ondelete="CASCADE"),
            nullable=True,
            index=True,
        ),
    )
    # The IANA zone the slots' wall times are in (the creator's when they were set), so
    # the CLI, a server in UTC and MCP all place a post at the same moment.
    timezone: str = Field(max_length=64)
    per_day: int | None = Field(default=None)  # the creator's most posts a day, if set
    # Where the workspace's queue sends a post when none is named (account ids).
    account_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class QueueSlot(SQLModel, table=True):
    __tablename__ = "queue_slot"
    __table_args__ = (UniqueConstraint("queue_id", "weekday", "minute", name="uq_queue_slot"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    queue_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("posting_queue.id", ondelete="CASCADE"), nullable=False
        )
    )
    weekday: int  # Monday is 0
    minute: int  # of the local day, 0-1439
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class QueueEntry(SQLModel, table=True):
    """A post in a queue's slot. It stands while the post is scheduled at `due_at`; a
    post moved, unscheduled or published by other means has left the queue (the entry
    is then stale and dropped the next time the queue is written)."""

    __tablename__ = "queue_entry"
    __table_args__ = (UniqueConstraint("queue_id", "due_at", name="uq_queue_entry_slot"),)

    post_id: str = Field(
        sa_column=Column(String(64), ForeignKey("post.id", ondelete="CASCADE"), primary_key=True)
    )
    queue_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("posting_queue.id", ondelete="CASCADE"), nullable=False
        )
    )
    due_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
