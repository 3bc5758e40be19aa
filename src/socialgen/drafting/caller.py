"""Who a generation runs for: the store, the workspace and the user, and the settings
it runs with (its face's Runtime's: plans and services read them here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Engine

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings


@dataclass(frozen=True)
class Caller:
    engine: Engine
    workspace_id: str
    user_id: str | None
    settings: AppSettings
