"""Follow-ups under a published post: a first comment, a reply when it takes off.

`PostFollowup` is what the creator asked for, one per (post, kind). Each publication
the follow-up goes under gets a `FollowupPublication`: its own small outbox row,
claimed like a publication (a lease, the attempt written before the network is
called), so a follow-up is posted exactly once and its failure never touches the
post's publication.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class FollowupKind(StrEnum):
    FIRST_COMMENT = "first_comment"  # under the post once it is live (after a delay)
    TAKEOFF_REPLY = "takeoff_reply"  # under the post once its likes pass a threshold


class FollowupState(StrEnum):
    QUEUED = "queued"  # waiting for its due time (or a planned retry)
    PUBLISHING = "publishing"  # claimed: a worker is talking to the network
    PUBLISHED = "published"
    FAILED = "failed"  # the network refused, or retries ran out
    UNKNOWN = "unknown"  # sent, no answer, nothing to dedupe on: the creator checks
    SKIPPED = "skipped"  # the network cannot reply under a post (a Discord webhook)


class PostFollowup(SQLModel, table=True):
    __tablename__ = "post_followup"
    __table_args__ = (UniqueConstraint("post_id", "kind", name="uq_post_followup_kind"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    post_id: str = Field(
        sa_column=Column(String(64), ForeignKey("post.id", ondelete="CASCADE"), nullable=False)
    )
    kind: str = Field(max_length=16)  # FollowupKind
    text: str = Field(sa_type=Text)
    delay_seconds: int = Field(default=0)  # first comment: after the post is live
    like_threshold: int | None = Field(default=None)  # take-off reply: likes it waits for
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class FollowupPublication(SQLModel, table=True):
    """One follow-up under one publication, with the columns a claim needs (as
    `Publication`'s: state, due time, attempts, the worker and its lease)."""

    __tablename__ = "followup_publication"
    __table_args__ = (
        UniqueConstraint("followup_id", "publication_id", name="uq_followup_publication"),
        # The scheduler's one look: queued rows by due time (and expired leases).
        Index("ix_followup_publication_state_due", "state", "due_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    followup_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("post_followup.id", ondelete="CASCADE"), nullable=False
        )
    )
    publication_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("publication.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    state: str = Field(default=FollowupState.QUEUED, max_length=16)
    due_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    attempts: int = Field(default=0)
    next_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The text the latest attempt sent (written with the claim): after an attempt whose
    # outcome is unclear, later attempts send this text, not an edited one.
    sent_text: str = Field(default="", sa_type=Text)
    # A long reply goes out as a thread on some networks: the parts already live.
    posted_parts: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Since when an attempt may be live without an answer (None: nothing unclear).
    maybe_live_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    first_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    remote_id: str | None = Field(default=None, max_length=512)
    remote_url: str | None = Field(default=None, max_length=2048)
    message: str = Field(default="", sa_type=Text)  # the network's words, or ours
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    posted_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
