"""Which published rows of an import the workspace already has.

A published row is a duplicate when a post of the workspace (or an earlier row of the
same file) has its `postUrl`, or its content and `publishedAt` (to the second: an X
archive has seconds, an export milliseconds). So importing a file again, or an
archive that overlaps one imported last month, adds only what is new.

The workspace's keys are read once, streamed, into two sets (a 16-byte digest of the
content, never the content itself): one query however long the file, not one a row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlmodel import Session

from socialgen.posts.repository_imports import published_keys

if TYPE_CHECKING:
    from socialgen.posts.imported import ImportedPost

ContentKey = tuple[bytes, datetime]


def content_key(content: str, published_at: datetime) -> ContentKey:
    digest = hashlib.blake2b(content.encode("utf-8"), digest_size=16).digest()
    second = published_at.astimezone(UTC).replace(microsecond=0, tzinfo=None)
    return digest, second


@dataclass
class KnownPosts:
    urls: set[str] = field(default_factory=set)
    contents: set[ContentKey] = field(default_factory=set)

    def seen(self, url: str | None, key: ContentKey) -> bool:
        """Whether a post with this address or content key is known; remembers it."""
        if (url is not None and url in self.urls) or key in self.contents:
            return True
        if url is not None:
            self.urls.add(url)
        self.contents.add(key)
        return False


def known_posts(session: Session, workspace_id: str) -> KnownPosts:
    known = KnownPosts()
    for url, content, published_at in published_keys(session, workspace_id):
        if url:
            known.urls.add(url)
        if published_at is not None:
            known.contents.add(content_key(content, published_at))
    return known


def without_duplicates(
    session: Session, workspace_id: str, posts: Sequence[ImportedPost]
) -> tuple[list[ImportedPost], int]:
    """The posts to create, in the file's order, and how many published rows were
    duplicates. Drafts and scheduled rows are never compared: a plan may repeat."""
    if not any(post.history is not None for post in posts):
        return list(posts), 0
    known = known_posts(session, workspace_id)
    fresh: list[ImportedPost] = []
    duplicates = 0
    for post in posts:
        history = post.history
        if history is not None and known.seen(
            history.post_url, content_key(post.content, history.published_at)
        ):
            duplicates += 1
        else:
            fresh.append(post)
    return fresh, duplicates
