"""Who a generation runs for: the store, the workspace and the user."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine


@dataclass(frozen=True)
class Caller:
    engine: Engine
    workspace_id: str
    user_id: str | None
