"""Content styles and their example posts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class ContentStyle(SQLModel, table=True):
    __tablename__ = "content_style"
    __table_args__ = (Index("ix_content_style_workspace_created", "workspace_id", "created_at"),)

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
    name: str = Field(max_length=200)
    description: str | None = Field(default=None, sa_type=Text)
    # Derived from the example posts each time they change ("training").
    profile: dict[str, Any] | None = Field(default=None, sa_type=JSON(none_as_null=True))
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class StylePost(SQLModel, table=True):
    __tablename__ = "style_post"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    style_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("content_style.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    content: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
