"""One valid post of an import file, as the import's steps (dedup, ids, rows) pass it
on: its own module, so that the steps and imports.py import it without a circle."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from socialgen.posts.history_rows import PublishedHistory
from socialgen.posts.import_fields import NO_FIELDS, RowFields
from socialgen.store.tables import PostStatus


@dataclass(frozen=True, slots=True)
class ImportedPost:
    """One valid post of an import file. `date` is set for scheduled posts only,
    `history` for published ones."""

    where: str  # "row 3" / "item 2", for messages
    content: str
    status: str = PostStatus.DRAFT
    date: datetime | None = None
    theme: str | None = None
    history: PublishedHistory | None = None
    post_id: str | None = None  # the id the file gives, as the store writes ids
    fields: RowFields = NO_FIELDS  # media, variation, account (posts/import_fields.py)
