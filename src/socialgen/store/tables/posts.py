"""Conversations (with their messages), posts and post versions."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class PostStatus(StrEnum):
    DRAFT = "draft"
    SCHEDULED = "scheduled"
    PUBLISHED = "published"


EDITABLE_STATUSES = frozenset({PostStatus.DRAFT, PostStatus.SCHEDULED})


class Conversation(SQLModel, table=True):
    __tablename__ = "conversation"
    __table_args__ = (Index("ix_conversation_workspace_updated", "workspace_id", "updated_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64), ForeignKey("user_account.id", ondelete="SET NULL"), nullable=True
        ),
    )
    title: str = Field(default="", max_length=300)
    status: str = Field(default="active", max_length=16)
    meta: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column("metadata", JSON, nullable=False)
    )
    # The conversation's current post text, kept in step with edits of its post.
    current_content: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Message(SQLModel, table=True):
    __tablename__ = "message"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    conversation_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("conversation.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    role: str = Field(max_length=16)  # user | assistant | system
    content: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Post(SQLModel, table=True):
    __tablename__ = "post"
    __table_args__ = (
        # recent-posts and posts-timeline read one workspace's window by timeline_at.
        Index("ix_post_workspace_timeline", "workspace_id", "timeline_at"),
        Index("ix_post_workspace_status_timeline", "workspace_id", "status", "timeline_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False)
    )
    conversation_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64),
            ForeignKey("conversation.id", ondelete="SET NULL"),
            nullable=True,
            index=True,
        ),
    )
    content: str = Field(sa_type=Text)
    post_type: str = Field(default="text", max_length=32)
    status: str = Field(default=PostStatus.DRAFT, max_length=16)
    variation_name: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    scheduled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    published_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The moment that places the post in the 90-day window: published_at when
    # published, scheduled_at when scheduled, updated_at for drafts. Kept by
    # Post.place_on_timeline() so both listings are one indexed range scan.
    timeline_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    post_url: str | None = Field(default=None, max_length=2048)
    social_account_name: str | None = Field(default=None, max_length=200)
    social_account_email: str | None = Field(default=None, max_length=320)
    likes: int = Field(default=0)
    comments: int = Field(default=0)
    # References to attached media, as SPEC.md shapes them (e.g. carousel
    # {id, name, thumbnailUrl, pdfUrl}); None when the post has none.
    carousel: dict[str, Any] | None = Field(default=None, sa_type=JSON(none_as_null=True))
    infographic: dict[str, Any] | None = Field(default=None, sa_type=JSON(none_as_null=True))
    generated_headshot: dict[str, Any] | None = Field(default=None, sa_type=JSON(none_as_null=True))
    custom_image: dict[str, Any] | None = Field(default=None, sa_type=JSON(none_as_null=True))

    def place_on_timeline(self) -> None:
        if self.status == PostStatus.PUBLISHED and self.published_at is not None:
            self.timeline_at = self.published_at
        elif self.status == PostStatus.SCHEDULED and self.scheduled_at is not None:
            self.timeline_at = self.scheduled_at
        else:
            self.timeline_at = self.updated_at


class PostVersion(SQLModel, table=True):
    """Every content a post has had, numbered from 1."""

    __tablename__ = "post_version"
    # The unique (post_id, version) index also serves lookups by post_id (and the
    # cascade from post): no index of post_id alone (migration 0008).
    __table_args__ = (UniqueConstraint("post_id", "version", name="uq_post_version_number"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    post_id: str = Field(
        sa_column=Column(String(64), ForeignKey("post.id", ondelete="CASCADE"), nullable=False)
    )
    version: int
    content: str = Field(sa_type=Text)
    source: str = Field(default="edit", max_length=32)  # generated | edit | import
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
