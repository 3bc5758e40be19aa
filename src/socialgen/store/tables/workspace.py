"""Workspaces, users, their memberships and each workspace's usage."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, ForeignKey, String
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class Role(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"


class Workspace(SQLModel, table=True):
    __tablename__ = "workspace"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    name: str = Field(max_length=200)
    # The workspace the CLI uses when none is named; exactly one after first run.
    is_default: bool = Field(default=False, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class User(SQLModel, table=True):
    __tablename__ = "user_account"  # "user" is reserved in PostgreSQL

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    email: str = Field(max_length=320, unique=True)
    name: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Membership(SQLModel, table=True):
    __tablename__ = "membership"

    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), primary_key=True
        )
    )
    user_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("user_account.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )
    role: str = Field(max_length=16)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class WorkspaceUsage(SQLModel, table=True):
    """Post quota and consumption. `post_quota` None means unlimited."""

    __tablename__ = "workspace_usage"

    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), primary_key=True
        )
    )
    post_quota: int | None = Field(default=None)
    posts_used: int = Field(default=0)
