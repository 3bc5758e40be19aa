"""A style taught with the creator's own best posts (`style create --from-top N`,
`fromTop` in the API): the N published posts that beat the creator's usual engagement
at the time by the most (socialgen.insights.top_posts). Never commits.

The dependency runs styles -> insights only: insights never imports styles, or the two
packages would import each other (tests/test_architecture.py).
"""

from __future__ import annotations

from sqlmodel import Session

from socialgen.insights.top_posts import best_posts
from socialgen.store.tables import ContentStyle
from socialgen.styles import service


def teach_from_top(
    session: Session, workspace_id: str, style: ContentStyle, count: int, *, asked_as: str
) -> None:
    """Add the workspace's `count` best posts to `style` as its examples (best first)
    and train it; a 400 naming how many measured posts exist when there are fewer."""
    top = best_posts(session, workspace_id, count, asked_as=asked_as)
    if style.description is None:
        style.description = (
            f"Learned from your {count} best post{'s' if count > 1 else ''} "
            "by engagement relative to your usual at the time"
        )
    service.add_posts(session, workspace_id, style.id, [post.content for post in top])
