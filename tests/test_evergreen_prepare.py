"""Writing evergreen runs ahead with the model (the scripted one): a run becomes a
scheduled post of its own and a version of the original; a copy of the original or of
an earlier run, the instructions written back, a model failure, a declined answer or
a text too long for a chosen network is refused, the reason kept on the run, and tried
again later; a run never goes out late (missed); two preparers never write one run
twice; stopping cancels what has not gone out. SQLite, and PostgreSQL with
SOCIALGEN_TEST_DATABASE_URL."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

from sqlmodel import select

from socialgen.kit.clock import utcnow
from socialgen.publishing.evergreen.plans import stop_plan
from socialgen.publishing.evergreen.prepare import prepare_due
from socialgen.publishing.evergreen.schemas import PrepareData
from socialgen.publishing.evergreen.variation import PURPOSE
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, PostVersion
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedCall, ScriptedModel, Streamed
from tests.evergreen_replies import fresh_variation
from tests.evergreen_support import (
    ORIGINAL,
    due_in,
    plan,
    plan_row,
    post_row,
    prepare,
    publications_of,
    published,
    runs,
)
from tests.outbox_support import add_account
from tests.scripted_support import ScriptedAI, provider_failure


def versions(store: Store, post_id: str) -> list[PostVersion]:
    with read_session(store.engine) as session:
        return list(
            session.exec(
                select(PostVersion)
                .where(PostVersion.post_id == post_id)
                .order_by(PostVersion.version)  # type: ignore[arg-type]
            ).all()
        )


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def soon_plan(store: Store, network: str = "bluesky", **terms: object) -> tuple[str, str]:
    """A published original with a plan whose first run is due in 3 hours."""
    account = add_account(store, f"@{network}.evergreen.test", network)
    post_id = published(store, [account])
    plan(store, post_id, first=utcnow() + timedelta(hours=3), **terms)  # type: ignore[arg-type]
    return post_id, account


def test_a_run_is_written_ahead_as_a_scheduled_post_and_a_version(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, account = soon_plan(store, every=7, times=2)
    due = plan_row(store, post_id).next_at
    used = posts_used(store)
    done = prepare(store, scripted_ai.model)
    assert (done.written, done.refused, done.missed) == (1, 0, 0), done
    (call,) = scripted_ai.calls_for(PURPOSE)
    assert ORIGINAL in call.prompt  # written from the original
    (run,) = runs(store, plan_row(store, post_id).id)
    assert run.state == "scheduled" and run.number == 1 and run.due_at == due
    assert run.post_id is not None and done.runs[0].runPostId == run.post_id
    post = post_row(store, run.post_id)
    assert post.status == "scheduled" and post.scheduled_at == due
    assert post.content == fresh_variation(call) != ORIGINAL
    (queued,) = publications_of(store, run.post_id)
    assert (queued.account_id, queued.state, queued.due_at) == (account, "queued", due)
    kept = versions(store, post_id)[-1]  # the original keeps the variation as a version
    assert (kept.source, kept.content, kept.version) == ("evergreen", post.content, run.version)
    assert post_row(store, post_id).content == ORIGINAL  # the original itself is unchanged
    row = plan_row(store, post_id)
    assert (row.next_number, row.runs_written, row.claimed_by) == (2, 1, None)
    assert due is not None and row.next_at == due + timedelta(days=7)
    assert posts_used(store) == used + 1  # a variation counts as a generated post
    again = prepare(store, scripted_ai.model)  # the next run is a week away: nothing
    assert again.runs == [] and len(scripted_ai.calls_for(PURPOSE)) == 1


def test_nothing_is_written_before_the_lead(store: Store, scripted_ai: ScriptedAI) -> None:
    account = add_account(store, "@later.test")
    post_id = published(store, [account])
    plan(store, post_id, first=utcnow() + timedelta(days=3))
    assert prepare(store, scripted_ai.model).runs == []
    assert scripted_ai.calls_for(PURPOSE) == [] and runs(store, plan_row(store, post_id).id) == []


def refused_once(store: Store, scripted_ai: ScriptedAI, post_id: str, words: str) -> None:
    """One preparation refuses the variation with `words`, keeps them, writes nothing."""
    used = posts_used(store)
    done = prepare(store, scripted_ai.model, force=True)
    assert (done.written, done.refused) == (0, 1), done
    assert words in done.runs[0].message, done.runs[0].message
    (run,) = runs(store, plan_row(store, post_id).id)
    assert run.state == "writing" and run.post_id is None and words in run.message
    assert words in plan_row(store, post_id).message
    assert posts_used(store) == used


def test_the_original_again_is_refused_and_tried_again_after_a_pause(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, _ = soon_plan(store)
    scripted_ai.evergreen_reply = lambda _call: ORIGINAL
    refused_once(store, scripted_ai, post_id, "the same words")
    row = plan_row(store, post_id)
    assert row.claimed_by is None and row.claimed_until is not None  # the pause
    assert row.claimed_until > utcnow()
    assert prepare(store, scripted_ai.model).runs == []  # the scheduler waits it out
    # Reworded a little (case, spacing, punctuation, one word): still too close.
    scripted_ai.evergreen_reply = lambda _call: ORIGINAL.replace("calmer", "quieter").upper()
    refused_once(store, scripted_ai, post_id, "the same as the original")
    scripted_ai.evergreen_reply = fresh_variation
    done = prepare(store, scripted_ai.model, force=True)  # on demand: no pause
    assert done.written == 1
    (run,) = runs(store, plan_row(store, post_id).id)
    assert run.attempts == 3 and run.message == "" and run.state == "scheduled"


def test_an_earlier_run_again_is_refused(store: Store, scripted_ai: ScriptedAI) -> None:
    post_id, _ = soon_plan(store)
    assert prepare(store, scripted_ai.model).written == 1
    first = post_row(store, runs(store, plan_row(store, post_id).id)[0].post_id or "").content
    due_in(store, post_id, timedelta(hours=2))
    scripted_ai.evergreen_reply = lambda _call: first
    refused_once_numbered(store, scripted_ai, post_id, "run 1")


def refused_once_numbered(store: Store, ai: ScriptedAI, post_id: str, words: str) -> None:
    done = prepare(store, ai.model, force=True)
    assert (done.written, done.refused) == (0, 1) and words in done.runs[0].message, done


def test_instructions_written_back_are_refused(store: Store, scripted_ai: ScriptedAI) -> None:
    post_id, _ = soon_plan(store)
    scripted_ai.evergreen_reply = lambda call: call.messages[0]["content"]
    refused_once(store, scripted_ai, post_id, "instructions back")


def test_a_model_failure_or_a_declined_answer_writes_nothing(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, _ = soon_plan(store)
    scripted_ai.evergreen_reply = lambda _call: provider_failure("status 503")
    refused_once(store, scripted_ai, post_id, "The AI provider failed: status 503")
    scripted_ai.evergreen_reply = lambda _call: "I'm sorry, but I can't help with that."
    refused_once(store, scripted_ai, post_id, "declined")
    scripted_ai.evergreen_reply = lambda _call: "   "
    refused_once(store, scripted_ai, post_id, "empty")
    scripted_ai.evergreen_reply = lambda _call: "Bread, butter and a quiet bakery morning."
    refused_once(store, scripted_ai, post_id, "about something else")


def test_too_long_for_x_is_refused_where_the_original_fit_one_post(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    short = "Shipping weekly beats one big launch: smaller diffs, faster feedback."
    account = add_account(store, "@shipper", "x")
    post_id = published(store, [account], short)
    plan(store, post_id, first=utcnow() + timedelta(hours=2))
    long = " ".join(
        f"Lesson {n}: weekly shipping means smaller diffs and quicker feedback." for n in range(6)
    )
    scripted_ai.evergreen_reply = lambda _call: long
    refused_once(store, scripted_ai, post_id, "too long for x")
    assert "the original in 1" in runs(store, plan_row(store, post_id).id)[0].message


def test_a_run_not_written_by_its_due_time_is_missed_not_sent_late(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, _ = soon_plan(store, every=7, times=2)
    due_in(store, post_id, timedelta(seconds=1))
    scripted_ai.evergreen_reply = lambda call: Streamed(fresh_variation(call), first_delay=1.5)
    done = prepare(store, scripted_ai.model)  # the model answers after the due time
    assert (done.written, done.missed) == (0, 1), done
    (run,) = runs(store, plan_row(store, post_id).id)
    assert run.state == "missed" and run.post_id is None and "before it was due" in run.message
    row = plan_row(store, post_id)
    assert (row.next_number, row.runs_written, row.state) == (2, 0, "active")
    assert "Run 1 was missed" in row.message
    # Due already when looked at: missed without asking the model.
    due_in(store, post_id, -timedelta(minutes=1))
    calls = len(scripted_ai.calls_for(PURPOSE))
    assert prepare(store, scripted_ai.model).missed == 1
    assert len(scripted_ai.calls_for(PURPOSE)) == calls


def test_the_plan_finishes_after_its_runs(store: Store, scripted_ai: ScriptedAI) -> None:
    post_id, _ = soon_plan(store, every=7, times=1)
    assert prepare(store, scripted_ai.model).written == 1
    row = plan_row(store, post_id)
    assert (row.state, row.next_at, row.runs_written) == ("finished", None, 1)
    until_id, _ = soon_plan(
        store, "mastodon", every=7, times=None, until=utcnow() + timedelta(days=3)
    )
    assert prepare(store, scripted_ai.model).written == 1
    assert plan_row(store, until_id).state == "finished"


def test_two_preparers_at_once_write_one_run(store: Store, scripted_ai: ScriptedAI) -> None:
    post_id, _ = soon_plan(store)
    scripted_ai.evergreen_reply = lambda call: Streamed(fresh_variation(call), first_delay=0.3)
    results: list[PrepareData] = []

    def one() -> None:
        results.append(prepare(store, scripted_ai.model))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.written for r in results) == [0, 1]
    assert len(scripted_ai.calls_for(PURPOSE)) == 1
    (run,) = runs(store, plan_row(store, post_id).id)
    with read_session(store.engine) as session:
        written = session.exec(select(Post).where(Post.variation_name == "Evergreen run 1")).all()
    assert [post.id for post in written] == [run.post_id]


def test_stopping_cancels_a_written_run_that_has_not_gone_out(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, _ = soon_plan(store)
    prepare(store, scripted_ai.model)
    (run,) = runs(store, plan_row(store, post_id).id)
    assert run.post_id is not None
    written = run.post_id
    with transaction(store.engine) as session:
        _, cancelled = stop_plan(session, store.workspace_id, post_id)
    assert cancelled == 1
    (run,) = runs(store, plan_row(store, post_id).id)
    assert (run.state, run.post_id) == ("cancelled", None)
    with read_session(store.engine) as session:
        assert session.get(Post, written) is None  # its post and queued publication are gone
    assert publications_of(store, written) == []
    assert versions(store, post_id)[-1].source == "evergreen"  # its text stays a version
    assert plan_row(store, post_id).runs_written == 0


def test_no_quota_or_no_account_left_is_refused_without_the_model(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    post_id, account = soon_plan(store)
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, posts_used(store))
    refused_once(store, scripted_ai, post_id, "post quota is spent")
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, None)
        from socialgen.publishing.accounts.service import remove_account

        remove_account(session, store.workspace_id, account)
    refused_once(store, scripted_ai, post_id, "none of the plan's accounts")
    assert scripted_ai.calls_for(PURPOSE) == []


def test_the_variation_call_names_the_earlier_runs(store: Store, scripted_ai: ScriptedAI) -> None:
    post_id, _ = soon_plan(store)
    prepare(store, scripted_ai.model)
    due_in(store, post_id, timedelta(hours=2))
    prepare(store, scripted_ai.model)
    first, second = scripted_ai.calls_for(PURPOSE)
    assert isinstance(second, ScriptedCall) and "Write version 3" in second.prompt
    assert fresh_variation(first) in second.prompt  # run 1's text, not to be repeated


def test_a_model_that_cannot_be_built_refuses_the_run(store: Store) -> None:
    """A bad provider setting is the run's reason, not a crash of the preparer."""
    from socialgen.ai.model import ModelError

    post_id, _ = soon_plan(store)

    def broken() -> ScriptedModel:
        raise ModelError("Unknown provider 'nope/model': set the model setting")

    done = asyncio.run(
        prepare_due(store.engine, broken, worker="test-preparer", max_tokens=700, force=True)
    )
    assert (done.written, done.refused) == (0, 1)
    (run,) = runs(store, plan_row(store, post_id).id)
    assert "Unknown provider" in run.message and plan_row(store, post_id).claimed_by is None
