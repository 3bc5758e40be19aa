"""Evergreen candidates for the faces: insights' judgement (insights/
evergreen_candidates.py) of the workspace's history, leaving out the posts that are
reposts of another (a run's post) or evergreen already (an active plan)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from socialgen.insights.evergreen_candidates import (
    CONFIDENCE,
    MIN_AGE_DAYS,
    candidates_of,
)
from socialgen.insights.history import load_published
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.publishing.evergreen import repository
from socialgen.publishing.evergreen.schemas import Candidate, CandidatesData

MAX_LIMIT = 100


def candidates(
    session: Session,
    workspace_id: str,
    *,
    min_age_days: int = MIN_AGE_DAYS,
    limit: int = 20,
    now: datetime | None = None,
) -> CandidatesData:
    if not 1 <= limit <= MAX_LIMIT:
        raise BadRequest(f"limit must be 1 to {MAX_LIMIT} (got {limit})")
    if not 0 <= min_age_days <= 3650:
        raise BadRequest(f"The minimum age must be 0 to 3650 days (got {min_age_days})")
    published = load_published(session, workspace_id)
    exclude = repository.run_posts(session, workspace_id) | repository.planned_posts(
        session, workspace_id
    )
    found = candidates_of(
        published,
        now or utcnow(),
        exclude=exclude,
        min_age_days=min_age_days,
        limit=limit,
    )
    return CandidatesData(
        candidates=[
            Candidate(
                postId=item.post.post_id,
                postContent=item.post.content,
                publishedAt=iso(item.post.published_at),
                engagement=item.post.engagement,
                multiplier=round(item.multiplier, 3),
                low=round(item.low, 3),
                high=round(item.high, 3),
            )
            for item in found.candidates
        ],
        measured=found.measured,
        considered=found.considered,
        minAgeDays=min_age_days,
        confidence=CONFIDENCE,
        withheld=found.withheld,
    )
