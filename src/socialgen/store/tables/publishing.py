"""Social accounts, the publication outbox and metric snapshots.

One `Publication` per (post, account) is the outbox: a worker (the scheduler in
each `serve`, or `socialgen publish-due`) claims a due row, writes `publishing`
with its attempt before calling the network, and records the answer after.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class Network(StrEnum):
    BLUESKY = "bluesky"
    MASTODON = "mastodon"
    LINKEDIN = "linkedin"


class PublicationState(StrEnum):
    QUEUED = "queued"  # waiting for its due time (or for a worker, when due)
    PUBLISHING = "publishing"  # claimed: a worker is talking to the network
    PUBLISHED = "published"
    FAILED = "failed"  # the network refused, or retries ran out
    UNKNOWN = "unknown"  # sent, no answer, no idempotency: the user must check
    MISSED = "missed"  # due while nothing ran, and later than the grace period


FINAL_STATES = frozenset(
    {
        PublicationState.PUBLISHED,
        PublicationState.FAILED,
        PublicationState.UNKNOWN,
        PublicationState.MISSED,
    }
)


class SocialAccount(SQLModel, table=True):
    __tablename__ = "social_account"
    __table_args__ = (
        UniqueConstraint("workspace_id", "network", "handle", name="uq_social_account_handle"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    network: str = Field(max_length=16)  # Network
    handle: str = Field(max_length=320)  # @name.bsky.social, @user@instance, LinkedIn URN
    display_name: str = Field(default="", max_length=200)
    email: str = Field(default="", max_length=320)
    profile_url: str = Field(default="", max_length=2048)
    service_url: str = Field(max_length=2048)  # PDS, instance or LinkedIn API base
    # Fernet token of the JSON secret fields; the key is never in the database.
    secret_ciphertext: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Publication(SQLModel, table=True):
    __tablename__ = "publication"
    __table_args__ = (
        UniqueConstraint("post_id", "account_id", name="uq_publication_post_account"),
        # The scheduler's one query: queued rows by due time.
        Index("ix_publication_state_due", "state", "due_at"),
        # `accounts history`: which of the account's past posts are known already.
        Index("ix_publication_account_remote", "account_id", "remote_id"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    post_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("post.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    account_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("social_account.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    state: str = Field(default=PublicationState.QUEUED, max_length=16)
    due_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    attempts: int = Field(default=0)
    # Retry backoff: not claimed again before this moment.
    next_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The worker holding a `publishing` row, and until when its claim stands.
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    remote_id: str | None = Field(default=None, max_length=512)
    remote_url: str | None = Field(default=None, max_length=2048)
    part_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    message: str = Field(default="", sa_type=Text)  # the network's own words, or ours
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    published_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    metrics_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class MetricSnapshot(SQLModel, table=True):
    """Counts read back from the network at one moment: a series, newest last.

    A snapshot belongs to a post, and to the publication it was read from when there is
    one; history imported from a file (`posts import` of published posts) has none.
    """

    __tablename__ = "metric_snapshot"
    __table_args__ = (
        Index("ix_metric_snapshot_publication_taken", "publication_id", "taken_at"),
        Index("ix_metric_snapshot_post_taken", "post_id", "taken_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    publication_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64), ForeignKey("publication.id", ondelete="CASCADE"), nullable=True
        ),
    )
    post_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64),
            ForeignKey("post.id", ondelete="CASCADE", name="fk_metric_snapshot_post_id"),
            nullable=True,
        ),
    )
    taken_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    likes: int = Field(default=0)
    reposts: int = Field(default=0)
    comments: int = Field(default=0)
    impressions: int | None = Field(default=None)
