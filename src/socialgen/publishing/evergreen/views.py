"""Plans and runs as the faces show them: each run with its own post, its publications
and its own numbers beside the original's (a run's likes are never the original's)."""

from __future__ import annotations

from sqlmodel import Session

from socialgen.kit.clock import iso
from socialgen.posts.repository_counts import latest_readings, summed_counts
from socialgen.publishing.accounts.service import list_accounts
from socialgen.publishing.evergreen import repository
from socialgen.publishing.evergreen.schemas import (
    AccountRef,
    Counts,
    PlanView,
    RunPublication,
    RunView,
)
from socialgen.publishing.outbox.repository import with_accounts
from socialgen.store.tables import EvergreenPlan, EvergreenRun, Post, RunState


def plan_views(session: Session, workspace_id: str, post_id: str | None = None) -> list[PlanView]:
    """The workspace's plans (the one of `post_id` when given), next due first."""
    plans = repository.plans_with_posts(session, workspace_id, post_id)
    runs = repository.runs_with_posts(session, [plan.id for plan, _ in plans])
    measured = [post.id for _, post in plans] + [post.id for _, post in runs if post is not None]
    counts = summed_counts(latest_readings(session, workspace_id, measured)) if measured else {}
    accounts = {account.id: account for account in list_accounts(session, workspace_id)}
    by_plan: dict[str, list[tuple[EvergreenRun, Post | None]]] = {}
    for run, post in runs:
        by_plan.setdefault(run.plan_id, []).append((run, post))

    def numbers(post_id: str) -> Counts | None:
        found = counts.get(post_id)
        if found is None:
            return None
        return Counts(
            likes=found.likes,
            reposts=found.reposts,
            comments=found.comments,
            impressions=found.impressions,
        )

    def run_view(run: EvergreenRun, post: Post | None) -> RunView:
        publications = [] if post is None else with_accounts(session, post.id)
        publications.sort(key=lambda row: row[0].created_at)
        return RunView(
            number=run.number,
            dueAt=iso(run.due_at),
            # A written run whose post was deleted since (posts delete) went nowhere.
            state="removed" if run.state == RunState.SCHEDULED and post is None else run.state,
            postId=post.id if post is not None else None,
            postStatus=post.status if post is not None else None,
            postContent=post.content if post is not None else None,
            version=run.version,
            attempts=run.attempts,
            message=run.message,
            metrics=numbers(post.id) if post is not None else None,
            publications=[
                RunPublication(
                    network=account.network,
                    account=account.handle,
                    state=publication.state,
                    url=publication.remote_url,
                    publishedAt=iso(publication.published_at),
                )
                for publication, account in publications
            ],
        )

    def view(plan: EvergreenPlan, original: Post) -> PlanView:
        return PlanView(
            id=plan.id,
            postId=original.id,
            postContent=original.content,
            publishedAt=iso(original.published_at),
            metrics=numbers(original.id),
            everyDays=plan.every_days,
            times=plan.max_runs,
            until=iso(plan.until),
            timezone=plan.zone,
            accounts=[
                AccountRef(
                    id=accounts[i].id, network=accounts[i].network, account=accounts[i].handle
                )
                for i in plan.account_ids
                if i in accounts  # an account removed since is gone from the plan's view
            ],
            state=plan.state,
            nextAt=iso(plan.next_at),
            nextNumber=plan.next_number,
            runsWritten=plan.runs_written,
            message=plan.message,
            runs=[run_view(run, post) for run, post in by_plan.get(plan.id, [])],
            createdAt=iso(plan.created_at),
            updatedAt=iso(plan.updated_at),
        )

    return [view(plan, original) for plan, original in plans]
