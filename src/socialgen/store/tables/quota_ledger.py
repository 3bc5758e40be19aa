"""The quota reservation ledger: which process holds which reserved posts.

A generation reserves posts before it writes them (workspace_usage.posts_used goes
up at once). Each reservation is a row here, owned by the process that made it;
the process proves it is alive by refreshing its lease. A reservation whose owner's
lease has lapsed (the process was killed) is given back by whoever reconciles next.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, String
from sqlmodel import Field, SQLModel

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.types import UTCDateTime


class ProcessLease(SQLModel, table=True):
    """One running socialgen process (a `serve` worker or a CLI command)."""

    __tablename__ = "process_lease"

    id: str = Field(primary_key=True, max_length=64)
    host: str = Field(max_length=255)
    pid: int
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # Refreshed while the process lives; older than the lease period means dead.
    last_seen: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class QuotaReservation(SQLModel, table=True):
    """Posts reserved by one generation; `spent` of them are saved posts."""

    __tablename__ = "quota_reservation"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=64)
    workspace_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("workspace.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    # No foreign key: a lease row goes away on its own once reconciled.
    owner_id: str = Field(max_length=64, index=True)
    reserved: int
    spent: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
