"""The creator's measured history: latest counts per place, summed; unmeasured posts out."""

from __future__ import annotations

from datetime import timedelta

from socialgen.insights.history import load_published
from socialgen.insights.text_features import describe, hook_kind
from socialgen.store.engine import transaction
from socialgen.store.tables.posts import PostStatus
from socialgen.store.tables.publishing import MetricSnapshot, Publication, SocialAccount
from tests.conftest import Store, days_ago


def _account(store: Store, handle: str) -> str:
    with transaction(store.engine) as session:
        account = SocialAccount(
            workspace_id=store.workspace_id,
            network="mastodon",
            handle=handle,
            service_url="https://example.social",
            secret_ciphertext="x",
        )
        session.add(account)
        session.flush()
        return account.id


def test_latest_snapshot_of_each_place_summed_and_unmeasured_posts_left_out(
    store: Store,
) -> None:
    measured = store.post(
        "Why ship weekly?",
        status=PostStatus.PUBLISHED,
        when=days_ago(3),
        custom_image={"url": "https://example.com/a.png"},
    )
    unmeasured = store.post("Never read back", status=PostStatus.PUBLISHED, when=days_ago(2))
    draft = store.post("A draft", status=PostStatus.DRAFT)
    first, second = _account(store, "@a@example.social"), _account(store, "@b@example.social")
    early = days_ago(1)
    with transaction(store.engine) as session:
        for account_id, counts in ((first, (5, 1, 2)), (second, (10, 0, 1))):
            publication = Publication(
                workspace_id=store.workspace_id,
                post_id=measured.id,
                account_id=account_id,
                state="published",
            )
            session.add(publication)
            session.flush()
            # An older snapshot that the newer one replaces.
            session.add(
                MetricSnapshot(
                    publication_id=publication.id,
                    post_id=measured.id,
                    taken_at=early,
                    likes=100,
                )
            )
            likes, reposts, comments = counts
            session.add(
                MetricSnapshot(
                    publication_id=publication.id,
                    post_id=measured.id,
                    taken_at=early + timedelta(hours=1),
                    likes=likes,
                    reposts=reposts,
                    comments=comments,
                )
            )
        # An import's snapshot: no publication, with impressions.
        session.add(MetricSnapshot(post_id=measured.id, taken_at=early, likes=3, impressions=400))
        session.add(MetricSnapshot(post_id=draft.id, taken_at=early, likes=50))
    with transaction(store.engine) as session:
        posts = load_published(session, store.workspace_id)
    assert [post.post_id for post in posts] == [measured.id]
    (post,) = posts
    assert (post.likes, post.reposts, post.comments) == (5 + 10 + 3, 1, 3)
    assert post.engagement == 22
    assert post.impressions == 400
    assert post.has_media
    assert unmeasured.id not in {p.post_id for p in posts}


def test_hooks_read_as_a_person_would() -> None:
    assert hook_kind("Why do small teams ship weekly?") == "question"
    assert hook_kind("3 things I learned shipping weekly") == "number"
    assert hook_kind("Shipping weekly changed us.") == "statement"
    features = describe(
        "Why ship weekly?\n\nBecause feedback 🚀 beats plans. #shipping #teams\n"
        "https://example.com/a @ada"
    )
    assert features.hook == "question"
    assert (features.links, features.hashtags, features.mentions, features.emoji) == (1, 2, 1, 1)
    assert features.lines == 3
