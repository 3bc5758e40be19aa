"""The per-workspace post quota: unlimited by default, atomic, refunded on failure."""

from __future__ import annotations

import pytest

from socialgen.kit.errors import BadRequest, QuotaExceeded
from socialgen.store.engine import read_session, transaction
from socialgen.workspaces.service import get_usage, set_post_quota
from socialgen.workspaces.usage import release_posts, reserve_posts
from tests.conftest import Store


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def test_quota_is_unlimited_by_default(store: Store) -> None:
    with transaction(store.engine) as session:
        reserve_posts(session, store.workspace_id, 10_000)
    assert used(store) == 10_000


def test_quota_refuses_what_is_not_left_and_takes_back_refunds(store: Store) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 5)
        reserve_posts(session, store.workspace_id, 3)

    with pytest.raises(QuotaExceeded) as refused, transaction(store.engine) as session:
        reserve_posts(session, store.workspace_id, 3)
    assert refused.value.status_code == 403
    assert refused.value.message == "Post quota exceeded: 3 requested, 2 left of 5"
    assert used(store) == 3

    with transaction(store.engine) as session:
        release_posts(session, store.workspace_id, 1)
        reserve_posts(session, store.workspace_id, 3)
    assert used(store) == 5


def test_quota_is_per_workspace(store: Store) -> None:
    other = store.workspace()
    with transaction(store.engine) as session:
        set_post_quota(session, other, 0)
        reserve_posts(session, store.workspace_id, 1)
    with pytest.raises(QuotaExceeded), transaction(store.engine) as session:
        reserve_posts(session, other, 1)


def test_negative_quota_is_refused(store: Store) -> None:
    with pytest.raises(BadRequest), transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, -1)
