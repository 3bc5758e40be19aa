"""Evergreen plans (issue 41, item 3): which posts may be evergreen, the terms and their
checks (every, times, until, first, accounts), when the runs are due (the original's
wall-clock time in the creator's zone, across DST), changing and stopping a plan.
Every refusal leaves nothing written. On SQLite, and on PostgreSQL with
SOCIALGEN_TEST_DATABASE_URL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.publishing.evergreen.cadence import (
    add_days,
    ends_before,
    first_due,
    parse_every,
    parse_until,
)
from socialgen.publishing.evergreen.plans import Terms, set_plan, stop_plan
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import EvergreenPlan, Post, PostStatus
from tests.conftest import Store
from tests.evergreen_support import UTC as UTC_ZONE
from tests.evergreen_support import plan, plan_row, post_row, published
from tests.outbox_support import add_account

PARIS = ZoneInfo("Europe/Paris")


def plans_count(store: Store) -> int:
    with read_session(store.engine) as session:
        return len(session.exec(select(EvergreenPlan)).all())


# --- the terms, as typed --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "days"), [("30d", 30), ("30", 30), ("4w", 28), ("2 weeks", 14), ("1 day", 1)]
)
def test_every_reads_days_and_weeks(text: str, days: int) -> None:
    assert parse_every(text) == days


@pytest.mark.parametrize(
    ("text", "words"),
    [("0d", "out of range"), ("400d", "out of range"), ("monthly", "days or weeks"), ("", "")],
)
def test_every_refuses_what_is_no_period(text: str, words: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_every(text)
    assert words in caught.value.message


def test_until_a_date_is_that_whole_day_in_the_zone() -> None:
    end = parse_until("2027-06-30", PARIS)
    assert end == datetime(2027, 6, 30, 21, 59, 59, 999999, tzinfo=UTC)  # CEST is UTC+2
    assert parse_until("2027-06-30T09:00", PARIS) == datetime(2027, 6, 30, 7, 0, tzinfo=UTC)
    assert parse_until("2027-06-30T09:00Z", PARIS) == datetime(2027, 6, 30, 9, 0, tzinfo=UTC)
    for bad in ("next june", "2027-13-01", "9999-12-31T23:00-05:00"):
        with pytest.raises(BadRequest):
            parse_until(bad, PARIS)


def test_runs_keep_the_wall_clock_time_across_daylight_saving() -> None:
    """09:00 in Paris is 08:00 UTC in winter and 07:00 UTC in summer: a run keeps 09:00."""
    winter = datetime(2026, 3, 20, 8, 0, tzinfo=UTC)  # 09:00 CET
    summer = add_days(winter, 14, PARIS)  # 2026-04-03, after the change of 29 March
    assert summer == datetime(2026, 4, 3, 7, 0, tzinfo=UTC)
    assert summer.astimezone(PARIS).hour == 9
    assert add_days(winter, 14, UTC_ZONE) == datetime(2026, 4, 3, 8, 0, tzinfo=UTC)


def test_the_first_run_is_whole_periods_after_the_original_and_far_enough_ahead() -> None:
    original = datetime(2026, 1, 1, 9, 30, tzinfo=UTC)
    now = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)
    assert first_due(original, 7, UTC_ZONE, now) == datetime(2026, 1, 22, 9, 30, tzinfo=UTC)
    # Less than an hour ahead is too soon for the model to write it: one period more.
    close = datetime(2026, 1, 22, 9, 0, tzinfo=UTC)
    assert first_due(original, 7, UTC_ZONE, close) == datetime(2026, 1, 29, 9, 30, tzinfo=UTC)
    # A recent original: one period after it, never before.
    assert first_due(now, 30, UTC_ZONE, now) == now + timedelta(days=30)


def test_a_plan_ends_after_its_runs_or_its_date() -> None:
    due = datetime(2027, 1, 10, tzinfo=UTC)
    assert ends_before(due, 3, 3, None) and not ends_before(due, 2, 3, None)
    assert ends_before(due, 0, None, due - timedelta(seconds=1))
    assert not ends_before(due, 9, None, due)


# --- setting a plan ---------------------------------------------------------------------


def test_a_published_post_becomes_evergreen_to_where_it_went(store: Store) -> None:
    first, second = add_account(store, "@one.test"), add_account(store, "@two.test")
    post_id = published(store, [first, second], days_ago=10)
    made = plan(store, post_id, every=7, times=3)
    row = plan_row(store, post_id)
    assert row.id == made.id and row.account_ids == [first, second]
    assert (row.state, row.next_number, row.runs_written, row.max_runs) == ("active", 1, 0, 3)
    post = post_row(store, post_id)
    assert post.published_at is not None
    # Two periods after the original (one would be in the past), at its time of day.
    assert row.next_at == post.published_at + timedelta(days=14)


def test_to_names_other_accounts_and_first_sets_the_first_run(store: Store) -> None:
    where, other = add_account(store, "@where.test"), add_account(store, "@other.test")
    post_id = published(store, [where])
    first = utcnow().replace(microsecond=0) + timedelta(days=2)
    plan(store, post_id, to=("@other.test", other), first=first, times=None, until=first)
    row = plan_row(store, post_id)
    assert row.account_ids == [other] and row.next_at == first and row.max_runs is None


@pytest.mark.parametrize(
    ("terms", "words"),
    [
        (Terms(7), "Say when it ends"),
        (Terms(0, times=2), "out of range"),
        (Terms(7, times=0), "--times must be 1 to 100"),
        (Terms(7, times=101), "--times must be 1 to 100"),
        (Terms(7, until=utcnow() - timedelta(days=1)), "--until must be in the future"),
        (Terms(7, times=2, first=utcnow() - timedelta(minutes=1)), "must be in the future"),
        (Terms(7, until=utcnow() + timedelta(days=2)), "after --until"),
    ],
)
def test_bad_terms_are_refused_and_nothing_is_written(
    store: Store, terms: Terms, words: str
) -> None:
    account = add_account(store, "@terms.test")
    post_id = published(store, [account], days_ago=1)
    with pytest.raises(BadRequest) as caught, transaction(store.engine) as session:
        set_plan(session, store.workspace_id, post_id, terms, UTC_ZONE)
    assert words in caught.value.message, caught.value.message
    assert plans_count(store) == 0


def test_only_a_published_text_post_of_this_workspace_may_be_evergreen(store: Store) -> None:
    account = add_account(store, "@only.test")
    draft = store.post("Not out yet")
    scheduled = store.post("Soon", status=PostStatus.SCHEDULED, when=utcnow() + timedelta(days=1))
    carousel = published(store, [account])
    with transaction(store.engine) as session:
        row = session.get(Post, carousel)
        assert row is not None
        row.carousel = {"id": "c1", "name": "Slides", "thumbnailUrl": "", "pdfUrl": ""}
        session.add(row)
    by_hand = store.post("Marked by hand", status=PostStatus.PUBLISHED, when=utcnow())
    other_workspace = store.workspace("Elsewhere")
    theirs = store.post("Theirs", workspace_id=other_workspace, status=PostStatus.PUBLISHED)
    cases = [
        (draft.id, BadRequest, "Only a published post can be evergreen (this post is draft)"),
        (scheduled.id, BadRequest, "(this post is scheduled)"),
        (carousel, BadRequest, "carousel"),
        (by_hand.id, BadRequest, "name the accounts"),
        (theirs.id, NotFound, "Post not found"),
    ]
    for post_id, error, words in cases:
        with pytest.raises(error) as caught, transaction(store.engine) as session:
            set_plan(session, store.workspace_id, post_id, Terms(7, times=2), UTC_ZONE)
        assert words in caught.value.message, (post_id, caught.value.message)
    with pytest.raises(NotFound) as unknown, transaction(store.engine) as session:
        set_plan(session, store.workspace_id, by_hand.id, Terms(7, 2, None, ("@nobody",)), UTC_ZONE)
    assert "@nobody" in unknown.value.message or "not found" in unknown.value.message.lower()
    assert plans_count(store) == 0


def test_changing_the_terms_keeps_the_plan_and_moves_its_next_run(store: Store) -> None:
    account = add_account(store, "@change.test")
    post_id = published(store, [account], days_ago=3)
    first = plan(store, post_id, every=7, times=2)
    again = plan(store, post_id, every=30, times=5)
    row = plan_row(store, post_id)
    assert again.id == first.id == row.id
    assert (row.every_days, row.max_runs) == (30, 5)
    assert row.next_at is not None and row.next_at - utcnow() > timedelta(days=25)


def test_stopping_ends_it_and_setting_it_again_starts_it_again(store: Store) -> None:
    account = add_account(store, "@stop.test")
    post_id = published(store, [account])
    plan(store, post_id)
    with transaction(store.engine) as session:
        stopped, cancelled = stop_plan(session, store.workspace_id, post_id)
        assert (stopped.state, stopped.next_at, cancelled) == ("stopped", None, 0)
    with transaction(store.engine) as session:  # stopping twice is harmless
        assert stop_plan(session, store.workspace_id, post_id)[0].state == "stopped"
    plan(store, post_id)
    assert plan_row(store, post_id).state == "active"
    never = store.post("Never evergreen", status=PostStatus.PUBLISHED)
    with pytest.raises(NotFound) as caught, transaction(store.engine) as session:
        stop_plan(session, store.workspace_id, never.id)
    assert "not evergreen" in caught.value.message
