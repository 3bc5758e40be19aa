"""Deleting a post for good: its rows in one transaction, then its media files.

Files go only after the commit, so a refused or failed delete keeps them. Kept
apart from the service, which never commits and never touches files.
"""

from __future__ import annotations

from sqlalchemy import Engine

from socialgen.files.layout import carousel_folder
from socialgen.files.store import FileStore
from socialgen.posts.schemas import DeletedPost
from socialgen.posts.service import delete_post, get_post
from socialgen.store.engine import transaction


def remove_post(engine: Engine, files: FileStore, workspace_id: str, post_id: str) -> DeletedPost:
    with transaction(engine) as session:
        carousel = get_post(session, workspace_id, post_id).carousel or {}
        deleted = delete_post(session, workspace_id, post_id)
    carousel_id = carousel.get("id")
    if isinstance(carousel_id, str) and carousel_id:
        # The carousel's rows went with the post (ON DELETE CASCADE).
        files.delete_folder(workspace_id, carousel_folder(carousel_id))
    return deleted
