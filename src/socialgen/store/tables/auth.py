"""API keys and bearer tokens. Only SHA-256 hashes of the secrets are stored."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, String
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class ApiKey(SQLModel, table=True):
    __tablename__ = "api_key"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    name: str | None = Field(default=None, max_length=200)
    prefix: str = Field(max_length=16)  # first characters of the key, to recognise it in lists
    key_hash: str = Field(max_length=64, unique=True)
    # A bound key acts as this workspace when no bearer token is sent.
    workspace_id: str | None = Field(
        default=None,
        sa_column=Column(String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=True),
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AccessToken(SQLModel, table=True):
    __tablename__ = "access_token"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    user_id: str = Field(
        sa_column=Column(
            String(64),
            ForeignKey("user_account.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    prefix: str = Field(max_length=16)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
