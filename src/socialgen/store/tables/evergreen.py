"""Evergreen reposts: a published post that goes out again every N days, each time as
a fresh variation the model wrote from it.

One `EvergreenPlan` per original post (its terms, the next run's due time, the claim
of whoever is writing that run). Each run is an `EvergreenRun`: its number, its due
time, and once written, its own scheduled post (the variation), which the outbox
publishes as any scheduled post: its publications and metrics stay apart from the
original's. The variation is also kept as a version of the original (PostVersion).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class PlanState(StrEnum):
    ACTIVE = "active"  # runs are written and go out
    STOPPED = "stopped"  # the creator stopped it (it can be set again)
    FINISHED = "finished"  # its last run is written (K runs, or past its end date)


class RunState(StrEnum):
    WRITING = "writing"  # its variation is not written yet (message: why the last try failed)
    SCHEDULED = "scheduled"  # written: its post is in the outbox (its publications tell the rest)
    MISSED = "missed"  # no acceptable variation before its due time: nothing went out
    CANCELLED = "cancelled"  # the plan was stopped before it went out


class EvergreenPlan(SQLModel, table=True):
    __tablename__ = "evergreen_plan"
    __table_args__ = (
        UniqueConstraint("post_id", name="uq_evergreen_plan_post"),
        # The preparer's one query: active plans by the next run's due time.
        Index("ix_evergreen_plan_state_next", "state", "next_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    post_id: str = Field(  # the original
        sa_column=Column(String(64), ForeignKey("post.id", ondelete="CASCADE"), nullable=False)
    )
    every_days: int
    max_runs: int | None = Field(default=None)  # at most this many runs go out
    until: datetime | None = Field(default=None, sa_type=UTCDateTime)  # no run due after it
    account_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # The zone whose wall-clock time the runs keep (09:00 stays 09:00 across DST).
    zone: str = Field(default="UTC", max_length=64)
    state: str = Field(default=PlanState.ACTIVE, max_length=16)
    next_number: int = Field(default=1)  # the number of the next run
    next_at: datetime | None = Field(default=None, sa_type=UTCDateTime)  # None once it ended
    runs_written: int = Field(default=0)  # runs handed to the outbox (what max_runs counts)
    # A preparer writing the next run (claimed_by set) until claimed_until; with
    # claimed_by unset, claimed_until is the back-off after a refused variation.
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    message: str = Field(default="", sa_type=Text)  # the latest problem, "" when none
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class EvergreenRun(SQLModel, table=True):
    __tablename__ = "evergreen_run"
    __table_args__ = (UniqueConstraint("plan_id", "number", name="uq_evergreen_run_number"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    plan_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("evergreen_plan.id", ondelete="CASCADE"), nullable=False
        )
    )
    number: int
    due_at: datetime = Field(sa_type=UTCDateTime)
    state: str = Field(default=RunState.WRITING, max_length=16)
    # The run's own post (its variation), once written; a post deleted later leaves None.
    post_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64), ForeignKey("post.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    version: int | None = Field(default=None)  # the original's version holding the variation
    attempts: int = Field(default=0)  # variations asked of the model for this run
    message: str = Field(default="", sa_type=Text)  # why the latest one was refused
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
