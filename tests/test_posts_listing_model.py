"""The post listings give PostList's JSON object without building the model (for
speed: posts.views.PostListJson): every field of it is the model's, in its order,
null where the model says null and absent where it says absent."""

from __future__ import annotations

from typing import Any

from socialgen.posts import listing
from socialgen.posts.schemas import PostList
from socialgen.store.engine import read_session
from socialgen.store.tables import PostStatus
from tests.conftest import Store, days_ago, days_ahead


def _listings(store: Store, **paging: Any) -> list[dict[str, Any]]:
    with read_session(store.engine) as session:
        return [
            read(session, store.workspace_id, **paging)
            for read in (listing.recent_posts, listing.posts_timeline)
        ]


def test_the_listings_are_postlists_json(store: Store) -> None:
    store.post("a draft", when=days_ago(1), post_url="https://example.com/x")
    store.post("published", status=PostStatus.PUBLISHED, when=days_ago(2), likes=3)
    store.post("ahead", status=PostStatus.SCHEDULED, when=days_ahead(3))

    for paging in ({}, {"limit": 1}, {"limit": 10}):
        for data in _listings(store, **paging):
            dumped = PostList.model_validate(data).json_data()
            assert dumped == data
            # The same keys in the same order, the posts' too: the same bytes.
            assert list(dumped) == list(data)
            assert [list(post) for post in dumped["posts"]] == [list(p) for p in data["posts"]]
            assert ("nextCursor" in data) == bool(paging)  # absent unless paged
