"""Carousels and their slides. Files (images, PDF, thumbnail) live in the file
store; rows hold their keys (paths relative to the workspace's file folder)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class Carousel(SQLModel, table=True):
    __tablename__ = "carousel"
    __table_args__ = (Index("ix_carousel_workspace_created", "workspace_id", "created_at"),)

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
    # The draft post that carries the carousel; deleting the post deletes the carousel.
    post_id: str | None = Field(
        default=None,
        sa_column=Column(
            String(64), ForeignKey("post.id", ondelete="CASCADE"), nullable=True, index=True
        ),
    )
    name: str = Field(max_length=200)
    prompt: str = Field(sa_type=Text)
    status: str = Field(default="draft", max_length=16)
    template: str = Field(max_length=64)
    theme: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    handle: str | None = Field(default=None, max_length=100)
    author_name: str | None = Field(default=None, max_length=200)
    profile_image_url: str | None = Field(default=None, max_length=2048)  # as given
    profile_image_file: str | None = Field(default=None, max_length=300)
    logo_file: str | None = Field(default=None, max_length=300)
    width: int = Field(default=1080)
    height: int = Field(default=1350)
    pdf_file: str = Field(max_length=300)
    thumbnail_file: str = Field(max_length=300)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class CarouselSlide(SQLModel, table=True):
    __tablename__ = "carousel_slide"
    __table_args__ = (
        UniqueConstraint("carousel_id", "position", name="uq_carousel_slide_position"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    carousel_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("carousel.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    position: int  # 0-based: SPEC.md's slideIndex
    title: str = Field(max_length=300)
    content: str = Field(sa_type=Text)
    image_prompt: str = Field(sa_type=Text)
    image_file: str = Field(max_length=300)
    # "model" or "template": whether the model wrote this slide's title and text.
    source: str = Field(
        default="model",
        sa_column=Column(String(16), nullable=False, server_default="model"),
    )
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
