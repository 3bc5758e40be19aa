"""The post ids an import file carries (`post_id` of a CSV export, `postId` of a JSON
one): what makes `posts export` then `posts import` a round trip, not a copy.

A row whose id is a post of the workspace is that post: skipped and counted, or with
`--update` its content (and theme, the conversation's title) replaced by the row's.
A row whose id no post has anywhere keeps it; an id another workspace uses becomes
`copy_id(workspace, id)`, the same each time, so a file imported into a second
workspace and then again there is recognised too. An id that is not one of ours (32
hex digits) is ignored: the row gets a new id.

The ids are looked up in slices of a few hundred (repository_imports.post_owners:
one query each, whatever the file's length stays within SQLite's bound on
parameters).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from sqlmodel import Session

from socialgen.kit.errors import BadRequest
from socialgen.posts.conversations import TITLE_CHARS, find_conversation
from socialgen.posts.repository_imports import post_owners
from socialgen.posts.service import update_content
from socialgen.store.tables import Post
from socialgen.store.tables.posts import EDITABLE_STATUSES

if TYPE_CHECKING:
    from socialgen.posts.imported import ImportedPost

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_COPIES = uuid.UUID("5b1d7e0c-8f3a-4c7e-9d2b-6a0f4e1c2d3b")  # namespace of copy_id


def normal_id(text: str | None) -> str | None:
    """An id as the store writes it (lower-case hex, no UUID dashes), or None when the
    text cannot be one of ours (a foreign export's own numbering)."""
    if not text:
        return None
    candidate = text.strip().lower().replace("-", "")
    return candidate if _HEX_ID.match(candidate) else None


@dataclass(frozen=True)
class KnownIds:
    mine: frozenset[str]  # posts of this workspace
    taken: frozenset[str]  # posts of other workspaces


def known_ids(session: Session, workspace_id: str, ids: Iterable[str]) -> KnownIds:
    wanted = sorted(set(ids))
    mine: set[str] = set()
    taken: set[str] = set()
    for post_id, owner in post_owners(session, wanted):
        (mine if owner == workspace_id else taken).add(post_id)
    return KnownIds(frozenset(mine), frozenset(taken))


@dataclass
class Split:
    fresh: list[ImportedPost]  # to create (their post_id kept when free, else None)
    existing: list[tuple[ImportedPost, str]]  # rows naming a post of the workspace
    repeats: int  # a second row with an id the file already named


def copy_id(workspace_id: str, post_id: str) -> str:
    """The id a post of another workspace takes when imported here: always the same
    for the same pair, so importing that file here again finds the copy."""
    return uuid.uuid5(_COPIES, f"{workspace_id}/{post_id}").hex


def split_by_id(session: Session, workspace_id: str, posts: Sequence[ImportedPost]) -> Split:
    """The rows to create and the rows that are posts the workspace has."""
    ids = [post.post_id for post in posts if post.post_id]
    if not ids:
        return Split(list(posts), [], 0)
    copies = {post_id: copy_id(workspace_id, post_id) for post_id in ids}
    known = known_ids(session, workspace_id, [*ids, *copies.values()])
    fresh: list[ImportedPost] = []
    existing: list[tuple[ImportedPost, str]] = []
    named: set[str] = set()
    repeats = 0
    for post in posts:
        if post.post_id is None:
            fresh.append(post)
            continue
        copy = copies[post.post_id]
        if post.post_id in known.mine or copy in known.mine:
            post_id = post.post_id if post.post_id in known.mine else copy
        else:
            post_id = copy if post.post_id in known.taken else post.post_id
        if post_id in named:
            repeats += 1
            continue
        named.add(post_id)
        if post_id in known.mine:
            existing.append((post, post_id))
        else:
            fresh.append(replace(post, post_id=post_id))
    return Split(fresh, existing, repeats)


def update_existing(
    session: Session, workspace_id: str, rows: Sequence[tuple[ImportedPost, str]], now: datetime
) -> int:
    """`--update`: each post takes its row's content (a new version, source "import")
    and theme; how many changed. A published post's text cannot change: the row is
    named and nothing is imported (the caller's transaction)."""
    changed = 0
    for imported, post_id in rows:
        post = session.get(Post, post_id)
        assert post is not None  # known_ids found it in this transaction
        touched = False
        if imported.content != post.content:
            if post.status not in EDITABLE_STATUSES:
                raise BadRequest(
                    f"Nothing imported: {imported.where}: post {post_id} is {post.status}, "
                    "its content cannot change"
                )
            update_content(session, workspace_id, post_id, imported.content, source="import")
            touched = True
        title = (imported.theme or "")[:TITLE_CHARS]
        if title and post.conversation_id is not None:
            conversation = find_conversation(session, workspace_id, post.conversation_id)
            if conversation is not None and conversation.title != title:
                conversation.title = title
                conversation.updated_at = now
                session.add(conversation)
                touched = True
        changed += touched
    session.flush()
    return changed
