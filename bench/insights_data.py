"""Reading real histories for bench/insights.py: an X archive's `tweets.js`
(`window.YTD.tweets.part0 = [...]`), original posts only (no replies, no retweets),
engagement = likes + retweets (the archive carries no reply counts)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from socialgen.app.runtime import Runtime
from socialgen.insights.history import PublishedPost


def read_tweets_js(path: Path) -> list[PublishedPost]:
    text = path.read_text(encoding="utf-8")
    rows = json.loads(text[text.index("=") + 1 :].strip().rstrip(";"))
    posts = []
    for row in rows:
        tweet = row.get("tweet", row)
        content = tweet.get("full_text", "")
        if content.startswith("RT @") or tweet.get("in_reply_to_status_id_str"):
            continue
        entities = tweet.get("extended_entities") or tweet.get("entities") or {}
        likes, reposts = int(tweet["favorite_count"]), int(tweet["retweet_count"])
        posts.append(
            PublishedPost(
                post_id=tweet["id_str"],
                content=content,
                published_at=datetime.strptime(tweet["created_at"], "%a %b %d %H:%M:%S %z %Y"),
                likes=likes,
                reposts=reposts,
                comments=0,
                impressions=None,
                has_media=bool(entities.get("media")),
            )
        )
    posts.sort(key=lambda post: (post.published_at, post.post_id))
    return posts


def seed_store(posts: list[PublishedPost]) -> tuple[str, list[str]]:
    """The posts as published posts of the default workspace of the store in
    SOCIALGEN_HOME (one snapshot each, as an import makes), plus five drafts to rank:
    (workspace id, draft ids)."""
    from socialgen.store.engine import transaction
    from socialgen.store.tables import Post, PostStatus
    from socialgen.store.tables.publishing import MetricSnapshot
    from socialgen.workspaces.service import default_workspace

    engine = Runtime().open_store()
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        rows = []
        for item in posts:
            post = Post(
                workspace_id=workspace.id,
                content=item.content,
                status=PostStatus.PUBLISHED,
                published_at=item.published_at,
                scheduled_at=item.published_at,
                timeline_at=item.published_at,
                custom_image={"url": "https://example.com/a.png"} if item.has_media else None,
            )
            rows.append((post, item))
        session.add_all([post for post, _ in rows])
        session.flush()
        session.add_all(
            MetricSnapshot(
                post_id=post.id,
                taken_at=item.published_at,
                likes=item.likes,
                reposts=item.reposts,
                comments=item.comments,
            )
            for post, item in rows
        )
        drafts = [Post(workspace_id=workspace.id, content=text) for text in DRAFTS]
        session.add_all(drafts)
        session.flush()
        return workspace.id, [draft.id for draft in drafts]


DRAFTS = (
    "Why do most side projects stall after the first month?\n\nIt took me a long time to see it.",
    "Shipping small changes beats planning big ones.\n\nSmall steps add up.",
    "3 things I learned from shipping every week\n\nFeedback early saves pain.",
    "Good writing is mostly rewriting.\n\nWriting it down makes the thinking clearer.",
    "Is remote work better for deep focus?\n\nTeams move at the speed of their trust.",
)
