"""Posting slots: reading "Tue 08:30, Thu 08:30", the moments they fall on across the
change of the clocks, and the next free slot of a queue in the store."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from socialgen.kit.errors import BadRequest
from socialgen.posts.service import get_post
from socialgen.publishing.queue.placement import free_slots, placing
from socialgen.publishing.queue.service import queue_post, set_slots
from socialgen.publishing.queue.slots import (
    WEEKDAYS,
    Slot,
    moment_of,
    occurrences,
    parse_slots,
    slot_at,
    slots_text,
)
from socialgen.store.engine import transaction
from socialgen.store.tables import PostStatus
from tests.conftest import Store

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


# --- reading and writing ---------------------------------------------------------------------


def test_the_issue_s_example_reads_back_as_written() -> None:
    slots = parse_slots("Tue 08:30, Thu 08:30, Sat 10:00")
    assert slots == [Slot(1, 510), Slot(3, 510), Slot(5, 600)]
    assert slots_text(slots) == "Tue 08:30, Thu 08:30, Sat 10:00"
    assert parse_slots(slots_text(slots)) == slots


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mon-Fri 9:00", "Mon 09:00, Tue 09:00, Wed 09:00, Thu 09:00, Fri 09:00"),
        ("weekends 10am", "Sat 10:00, Sun 10:00"),
        ("Fri-Mon 12:15", "Mon 12:15, Fri 12:15, Sat 12:15, Sun 12:15"),
        ("tuesday 8:30 5:30 pm; THU 08:30\nsat 10:00",
         "Tue 08:30, Tue 17:30, Thu 08:30, Sat 10:00"),
        ("Tue 08:30, tue 08:30, Tue 8:30am", "Tue 08:30"),
        ("every day 12 am", ", ".join(f"{day} 00:00" for day in WEEKDAYS)),
        ("Sun 23:59, Mon 00:00", "Mon 00:00, Sun 23:59"),
    ],
)  # fmt: skip
def test_days_ranges_and_times_in_their_usual_forms(text: str, expected: str) -> None:
    assert slots_text(parse_slots(text)) == expected


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "Give at least one slot"),
        (" , ;", "Give at least one slot"),
        ("Tue", "No time in 'Tue'"),
        ("08:30", "Not a day in '08:30'"),
        ("Tuz 08:30", "Not a day in 'Tuz 08:30': 'tuz'"),
        ("Tue 24:00", "Not a time in 'Tue 24:00': '24:00' (hours 00-23"),
        ("Tue 08:60", "Not a time in 'Tue 08:60'"),
        ("Tue 8", "Not a time in 'Tue 8': '8' (HH:MM"),
        ("Tue 13pm", "Not a time in 'Tue 13pm': '13pm' (1-12 with am or pm)"),
        ("Tue 08:30 soon", "Not a time in 'Tue 08:30 soon': 'soon'"),
        ("daily " + " ".join(f"{h:02d}:{m:02d}" for h in range(24) for m in (0, 30)),
         "At most 168"),
    ],
)  # fmt: skip
def test_bad_slots_are_refused_naming_the_item(text: str, said: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_slots(text)
    assert said in refused.value.message


# --- moments, across the change of the clocks -----------------------------------------------


def test_a_slot_is_wall_time_so_its_utc_moment_moves_with_summer_time() -> None:
    tuesday = Slot(1, 8 * 60 + 30)
    summer = moment_of(datetime(2026, 7, 7).date(), tuesday, BERLIN)
    winter = moment_of(datetime(2026, 12, 8).date(), tuesday, BERLIN)
    assert summer == datetime(2026, 7, 7, 6, 30, tzinfo=UTC)  # CEST, UTC+2
    assert winter == datetime(2026, 12, 8, 7, 30, tzinfo=UTC)  # CET, UTC+1
    # Over the weeks around the change, the local wall time never moves.
    start = datetime(2026, 10, 1, tzinfo=UTC)
    moments = occurrences([tuesday], BERLIN, start, 70)
    assert len(moments) == 10
    assert {m.astimezone(BERLIN).strftime("%a %H:%M") for m in moments} == {"Tue 08:30"}
    assert {m.utcoffset() for m in moments} == {timedelta(0)}
    assert len({m.astimezone(UTC).hour for m in moments}) == 2  # 06:30 then 07:30 UTC


def test_a_wall_time_the_clocks_jump_over_goes_out_the_gap_later_once() -> None:
    # Berlin, 2027-03-28: 02:00 becomes 03:00. 02:30 does not exist that night.
    sunday = datetime(2027, 3, 28).date()
    jumped = moment_of(sunday, Slot(6, 2 * 60 + 30), BERLIN)
    assert jumped == datetime(2027, 3, 28, 1, 30, tzinfo=UTC)
    assert jumped.astimezone(BERLIN).strftime("%H:%M %Z") == "03:30 CEST"
    # A 03:30 slot the same day is that very moment: one post, not two at once.
    slots = parse_slots("Sun 02:30, Sun 03:30, Sun 09:00")
    that_day = [
        m
        for m in occurrences(slots, BERLIN, datetime(2027, 3, 27, tzinfo=UTC), 3)
        if m.astimezone(BERLIN).date() == sunday
    ]
    assert [m.astimezone(BERLIN).strftime("%H:%M") for m in that_day] == ["03:30", "09:00"]
    # The week before and after, both slots are there, each at its own time.
    week_before = occurrences(slots, BERLIN, datetime(2027, 3, 20, tzinfo=UTC), 3)
    assert [m.astimezone(BERLIN).strftime("%H:%M") for m in week_before] == [
        "02:30", "03:30", "09:00"
    ]  # fmt: skip
    assert slot_at(slots, BERLIN, jumped) in (Slot(6, 150), Slot(6, 210))


def test_a_wall_time_that_happens_twice_is_taken_once_the_first_time() -> None:
    # New York, 2026-11-01: 02:00 goes back to 01:00; 01:30 happens twice.
    slots = parse_slots("Sun 01:30")
    moments = occurrences(slots, NEW_YORK, datetime(2026, 10, 31, tzinfo=UTC), 3)
    assert moments == [datetime(2026, 11, 1, 5, 30, tzinfo=UTC)]  # 01:30 EDT, UTC-4
    assert slot_at(slots, NEW_YORK, moments[0]) == slots[0]


def test_occurrences_are_in_order_and_after_the_given_moment() -> None:
    slots = parse_slots("daily 00:15 12:00 23:45")
    after = datetime(2027, 3, 27, 23, 30, tzinfo=UTC)  # 00:30 in Berlin, the night of the jump
    moments = occurrences(slots, BERLIN, after, 14)
    assert moments == sorted(set(moments))
    assert all(moment > after for moment in moments)
    # 14 local days from the 28th, that day's 00:15 past; the 15th day only looks ahead.
    assert len(moments) == 3 * 14 - 1
    assert moments[0].astimezone(BERLIN).strftime("%d %H:%M") == "28 12:00"


# --- the next free slot, in the store ------------------------------------------------------------


def test_the_next_free_slot_skips_taken_ones_and_what_goes_out_at_that_moment(
    store: Store,
) -> None:
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)  # a Monday
    with transaction(store.engine) as session:
        queue = set_slots(session, store.workspace_id, "Tue 08:30, Thu 08:30", zone="Europe/Berlin")
        place = placing(session, queue)
        first = free_slots(session, place, now, 3)
    assert [m.astimezone(BERLIN).strftime("%a %d %H:%M") for m in first] == [
        "Tue 08 08:30", "Thu 10 08:30", "Tue 15 08:30"
    ]  # fmt: skip
    # A post scheduled by hand at Tuesday's slot moment takes it: never two at once.
    store.post("By hand", status=PostStatus.SCHEDULED, when=first[0])
    with transaction(store.engine) as session:
        assert free_slots(session, placing(session, queue), now)[0] == first[1]


def test_a_queue_thousands_of_slots_long_still_finds_the_end(store: Store) -> None:
    """Past the first window (weeks), the search doubles its window until it finds one."""
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    with transaction(store.engine) as session:
        queue = set_slots(session, store.workspace_id, "Sat 10:00", zone="UTC")
        ahead = free_slots(session, placing(session, queue), now, 60)
    for moment in ahead[:59]:
        store.post("Filler", status=PostStatus.SCHEDULED, when=moment)
    with transaction(store.engine) as session:
        assert free_slots(session, placing(session, queue), now) == [ahead[59]]


def test_queueing_fills_slots_in_order_and_a_queued_post_keeps_its_slot(store: Store) -> None:
    with transaction(store.engine) as session:
        set_slots(session, store.workspace_id, "Mon-Fri 09:00", zone="America/New_York")
    posts = [store.post(f"Queued {i}").id for i in range(4)]
    moments = []
    for post_id in posts:
        with transaction(store.engine) as session:
            moments.append(queue_post(session, store.workspace_id, post_id).at)
    assert moments == sorted(moments) and len(set(moments)) == 4
    local = [m.astimezone(NEW_YORK) for m in moments]
    assert {m.strftime("%H:%M") for m in local} == {"09:00"}
    assert all(m.weekday() < 5 for m in local)
    with transaction(store.engine) as session:
        again = queue_post(session, store.workspace_id, posts[1])
        assert again.at == moments[1]  # already in the queue: it keeps its slot
        post = get_post(session, store.workspace_id, posts[1])
        assert post.status == PostStatus.SCHEDULED and post.scheduled_at == moments[1]


def test_without_slots_queueing_is_refused_and_nothing_changes(store: Store) -> None:
    post = store.post("No slots yet")
    with pytest.raises(BadRequest) as refused, transaction(store.engine) as session:
        queue_post(session, store.workspace_id, post.id)
    assert "No posting slots for the workspace" in refused.value.message
    with transaction(store.engine) as session:
        assert get_post(session, store.workspace_id, post.id).status == PostStatus.DRAFT


def test_per_day_refuses_a_day_with_more_slots_and_is_kept(store: Store) -> None:
    with transaction(store.engine) as session:
        set_slots(session, store.workspace_id, "Tue 08:30", zone="UTC", per_day=1)
    with pytest.raises(BadRequest) as refused, transaction(store.engine) as session:
        set_slots(session, store.workspace_id, "Tue 08:30 17:00, Thu 08:30", zone="UTC")
    assert "More slots than your 1 post(s) a day: Tue has 2" in refused.value.message
    with pytest.raises(BadRequest), transaction(store.engine) as session:
        set_slots(session, store.workspace_id, "Tue 08:30", zone="Mars/Olympus")


def test_writers_queueing_at_once_take_different_slots(store: Store) -> None:
    """Each placement holds the queue's row lock (PostgreSQL; SQLite's write lock) and
    the store refuses two posts in one slot of a queue: no slot is given twice."""
    from concurrent.futures import ThreadPoolExecutor

    with transaction(store.engine) as session:
        set_slots(session, store.workspace_id, "daily 09:00", zone="UTC")
    posts = [store.post(f"At once {i}").id for i in range(8)]
    start = threading.Barrier(len(posts))

    def place(post_id: str) -> datetime:
        start.wait()
        with transaction(store.engine) as session:
            return queue_post(session, store.workspace_id, post_id).at

    with ThreadPoolExecutor(len(posts)) as pool:
        moments = list(pool.map(place, posts))
    assert len(set(moments)) == len(posts)
    first = min(moments)
    assert sorted(moments) == [first + timedelta(days=day) for day in range(len(posts))]
