"""Who a generation runs for: the store, the workspace and the user, and the settings
it runs with (its face's Runtime's: plans and services read them here), with the
file store its Runtime keeps (`files_of(runtime)`: where a carousel's files go) and the
trained rankers (`runtime.held.rankers`: a batch's order; a Caller made without them
starts an empty cache of its own)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from socialgen.kit.kept import KEPT_RANKERS, Kept

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings
    from socialgen.files.store import FileStore


@dataclass(frozen=True)
class Caller:
    engine: Engine
    workspace_id: str
    user_id: str | None
    settings: AppSettings
    files: FileStore = field(kw_only=True)
    # insights.ranking.Rankers: named by insights, which sits below and knows its type.
    rankers: Kept[Any, Any] = field(default_factory=lambda: Kept(KEPT_RANKERS))
