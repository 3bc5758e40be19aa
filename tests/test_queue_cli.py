"""`socialgen queue ...` and `socialgen posts queue`: slots set and listed, posts put in
the next free slot with their publications in the outbox, removed and moved with the
gap left or closed, each account's own queue, and clear refusals that change nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.clock import parse_iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Post, PostStatus, Publication
from tests.conftest import Store
from tests.outbox_support import add_account
from tests.scripted_support import ScriptedAI

runner = CliRunner()
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(autouse=True)
def _berlin(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert run("config", "set", "timezone", "Europe/Berlin").exit_code == 0


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def ok(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def refused(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 1, result.output
    return " ".join(result.output.split())


def stored(store: Store, post_id: str) -> tuple[Post, list[Publication]]:
    with transaction(store.engine) as session:
        post = session.get(Post, post_id)
        assert post is not None
        rows = list(session.exec(select(Publication).where(Publication.post_id == post_id)))
        session.expunge_all()
        return post, rows


def local(moment: str) -> str:
    return parse_iso(moment).astimezone(BERLIN).strftime("%a %H:%M")


def test_slots_are_set_listed_and_refused_in_clear_words(store: Store) -> None:
    data = ok("queue", "slots", "set", "Tue 08:30, Thu 08:30, Sat 10:00", "--per-day", "1")
    assert data["slots"] == ["Tue 08:30", "Thu 08:30", "Sat 10:00"]
    assert data["timezone"] == "Europe/Berlin" and data["perDay"] == 1
    assert local(data["nextFreeAt"]) in data["slots"]
    assert parse_iso(data["nextFreeAt"]) > utcnow()
    (listed,) = ok("queue", "slots")["queues"]
    assert listed == data
    shown = run("queue", "slots").output
    assert "Tue 08:30, Thu 08:30, Sat 10:00" in shown and "Europe/Berlin" in shown

    said = refused("queue", "slots", "set", "Tue 08:30, Thu 25:00")
    assert "Not a time in 'Thu 25:00': '25:00' (hours 00-23, minutes 00-59" in said
    said = refused("queue", "slots", "set", "Tue 08:30 17:00")
    assert "More slots than your 1 post(s) a day: Tue has 2" in said
    said = refused("queue", "slots", "set", "Tue 08:30", "--tz", "Nowhere/Atlantis")
    assert "Unknown time zone 'Nowhere/Atlantis'" in said
    said = refused("queue", "slots", "set", "Tue 08:30", "--account", "@nobody")
    assert "nobody" in said
    assert ok("queue", "slots")["queues"][0]["slots"] == data["slots"]  # nothing written


def test_posts_go_into_the_next_free_slots_through_the_outbox(store: Store) -> None:
    account = add_account(store, "@me.bsky.social")
    ok("queue", "slots", "set", "Mon-Fri 09:00")
    posts = [store.post(f"Queued post {i}: why small teams ship weekly").id for i in range(3)]
    answers = [ok("posts", "queue", post_id, "--to", "@me.bsky.social") for post_id in posts]
    moments = [parse_iso(answer["scheduledAt"]) for answer in answers]
    assert moments == sorted(moments) and len(set(moments)) == 3
    for answer, post_id in zip(answers, posts, strict=True):
        assert answer["status"] == "scheduled" and answer["slot"] == local(answer["scheduledAt"])
        (publication,) = answer["publications"]
        assert publication["accountId"] == account and publication["state"] == "queued"
        assert publication["dueAt"] == answer["scheduledAt"]
        post, rows = stored(store, post_id)  # the outbox's own rows, read back
        assert post.status == PostStatus.SCHEDULED and post.scheduled_at == parse_iso(
            answer["scheduledAt"]
        )
        assert [(row.state, row.due_at) for row in rows] == [("queued", post.scheduled_at)]

    (queue,) = ok("queue")["queues"]
    assert [p["postId"] for p in queue["posts"]] == posts
    assert queue["posts"][0]["content"] == "Queued post 0: why small teams ship weekly"
    assert queue["freeAt"] == [] and queue["queued"] == 3
    shown = run("queue").output
    assert "Queued post 0: why small teams ship weekly" in shown  # text, not only ids
    assert "Europe/Berlin" in shown and "bluesky:@me.bsky.social queued" in shown


def test_removing_leaves_the_gap_or_closes_it_and_the_outbox_follows(store: Store) -> None:
    add_account(store, "@me.bsky.social")
    ok("queue", "slots", "set", "daily 09:00")
    posts = [store.post(f"Post {i}").id for i in range(4)]
    moments = [ok("posts", "queue", p, "--to", "@me.bsky.social")["scheduledAt"] for p in posts]

    left = ok("queue", "remove", posts[1])  # the gap stays
    assert left["status"] == "draft" and left["droppedPublications"] == 1 and left["moved"] == []
    assert stored(store, posts[1])[1] == []
    (queue,) = ok("queue")["queues"]
    assert [p["postId"] for p in queue["posts"]] == [posts[0], posts[2], posts[3]]
    assert queue["freeAt"] == [moments[1]] and queue["nextFreeAt"] == moments[1]

    closed = ok("queue", "remove", posts[0], "--close-gap")
    assert [(m["postId"], m["fromAt"], m["toAt"]) for m in closed["moved"]] == [
        (posts[2], moments[2], moments[0]),
        (posts[3], moments[3], moments[2]),
    ]
    for post_id, moment in ((posts[2], moments[0]), (posts[3], moments[2])):
        post, (publication,) = stored(store, post_id)
        assert post.scheduled_at == publication.due_at == parse_iso(moment)
    # The gap that was left earlier is filled by the first move; the last slot frees.
    assert ok("queue")["queues"][0]["freeAt"] == [moments[1]]
    # The next post queued takes the first free slot.
    again = ok("posts", "queue", posts[1])
    assert again["scheduledAt"] == moments[1] and again["publications"] == []


def test_moving_to_a_free_slot_a_taken_one_or_out_of_the_queue(store: Store) -> None:
    ok("queue", "slots", "set", "daily 09:00")
    posts = [store.post(f"Post {i}").id for i in range(3)]
    moments = [ok("posts", "queue", p)["scheduledAt"] for p in posts]
    later = (parse_iso(moments[2]) + timedelta(days=2)).astimezone(BERLIN)

    said = refused("queue", "move", posts[0], "--at", moments[1])
    assert f"That slot ({moments[1]}) is taken by post {posts[1]} ('Post 1')" in said
    moved = ok("queue", "move", posts[0], "--at", later.strftime("%Y-%m-%dT%H:%M"))
    assert moved["inQueue"] is True and moved["slot"] == local(moved["scheduledAt"])
    assert parse_iso(moved["scheduledAt"]) == later
    (queue,) = ok("queue")["queues"]
    assert [p["postId"] for p in queue["posts"]] == [posts[1], posts[2], posts[0]]
    assert moments[0] in queue["freeAt"]

    out = ok("queue", "move", posts[2], "--at", later.replace(hour=13).isoformat(), "--close-gap")
    assert out["inQueue"] is False and out["slot"] is None
    assert [(m["postId"], m["toAt"]) for m in out["moved"]] == [(posts[0], moments[2])]
    post, _ = stored(store, posts[2])
    assert post.status == PostStatus.SCHEDULED  # still goes out, outside the queue
    assert [p["postId"] for p in ok("queue")["queues"][0]["posts"]] == [posts[1], posts[0]]

    said = refused("queue", "move", posts[1], "--at", "2001-01-01T09:00")
    assert "must be in the future" in said
    said = refused("queue", "move", posts[2], "--at", later.isoformat())
    assert "The post is not in the queue (it is scheduled)" in said
    said = refused("queue", "move", posts[1], "--at", "best")
    assert 'not "best"' in said


def test_an_account_s_own_queue_and_the_workspace_queue_s_accounts(store: Store) -> None:
    mine = add_account(store, "@me.bsky.social")
    other = add_account(store, "@other.bsky.social")
    ok("queue", "slots", "set", "Mon-Fri 09:00", "--to", "@me.bsky.social")
    own = ok("queue", "slots", "set", "Sat 11:15, Sun 11:15", "--account", "@other.bsky.social")
    assert own["account"] == "@other.bsky.social" and own["accounts"] == []

    to_other = ok("posts", "queue", store.post("For other").id, "--to", "@other.bsky.social")
    assert to_other["queue"]["accountId"] == other and to_other["slot"] in (
        "Sat 11:15",
        "Sun 11:15",
    )
    both = ok("posts", "queue", store.post("For both").id, "--to", mine, "--to", other)
    assert both["queue"]["accountId"] is None and local(both["scheduledAt"]).endswith("09:00")
    by_default = ok("posts", "queue", store.post("For the queue's account").id)
    assert [p["accountId"] for p in by_default["publications"]] == [mine]

    queues = ok("queue")["queues"]
    assert [q["accountId"] for q in queues] == [None, other]
    assert len(queues[0]["posts"]) == 2 and len(queues[1]["posts"]) == 1
    assert [q["accountId"] for q in ok("queue", "--account", "@other.bsky.social")["queues"]] == [
        other
    ]
    said = refused("queue", "slots", "set", "Sat 12:00", "--account", other, "--to", mine)
    assert "An account's queue publishes to that account" in said


def test_a_post_that_left_by_other_means_frees_its_slot(store: Store) -> None:
    ok("queue", "slots", "set", "daily 09:00")
    first, second = store.post("First").id, store.post("Second").id
    moment = ok("posts", "queue", first)["scheduledAt"]
    ok("posts", "queue", second)
    assert ok("posts", "unschedule", first)["status"] == "draft"
    (queue,) = ok("queue")["queues"]
    assert [p["postId"] for p in queue["posts"]] == [second]
    assert queue["nextFreeAt"] == moment
    assert ok("posts", "queue", store.post("Third").id)["scheduledAt"] == moment
    said = refused("queue", "remove", first)
    assert "The post is not in the queue (it is draft)" in said


def test_refusals_change_nothing(store: Store) -> None:
    draft = store.post("A draft")
    said = refused("posts", "queue", draft.id)
    assert (
        'No posting slots for the workspace: set them first, e.g. socialgen queue slots set "'
        in said
    )
    ok("queue", "slots", "set", "daily 09:00")
    published = store.post("Out already", status=PostStatus.PUBLISHED)
    assert "Cannot schedule a published post" in refused("posts", "queue", published.id)
    assert "not found" in refused("posts", "queue", "no-such-post").lower()
    said = refused("posts", "queue", draft.id, "--number-parts")
    assert "--number-parts and --retry go with --to ACCOUNT" in said
    post, rows = stored(store, draft.id)
    assert post.status == PostStatus.DRAFT and rows == []
    assert ok("queue")["queues"][0]["posts"] == []


def test_numbered_parts_stay_when_the_post_is_queued_again(store: Store) -> None:
    add_account(store, "@me.bsky.social")
    ok("queue", "slots", "set", "daily 09:00")
    post = store.post("A thread to be").id
    first = ok("posts", "queue", post, "--to", "@me.bsky.social", "--number-parts")
    again = ok("posts", "queue", post)
    assert again["scheduledAt"] == first["scheduledAt"]
    _, (publication,) = stored(store, post)
    assert publication.options["number_parts"] is True


def test_clearing_the_slots_keeps_the_posts_scheduled(store: Store) -> None:
    ok("queue", "slots", "set", "daily 09:00")
    post = store.post("Stays").id
    moment = ok("posts", "queue", post)["scheduledAt"]
    cleared = ok("queue", "slots", "clear")
    assert cleared["keptScheduled"] == 1
    assert ok("queue")["queues"] == []
    assert stored(store, post)[0].scheduled_at == parse_iso(moment)
    assert "No queue to clear" in refused("queue", "slots", "clear")


def test_a_calendar_fills_the_queue_s_next_free_slots(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    account = add_account(store, "@me.bsky.social")
    ok("queue", "slots", "set", "Tue 08:30, Thu 08:30, Sat 10:00", "--to", account)
    taken = ok("posts", "queue", store.post("Already queued").id)["scheduledAt"]
    result = scripted_ai.invoke(
        ["calendar", "7", "--prompt", "shipping weekly", "--queue", "--json"]
    )
    assert result.exit_code == 0, result.output
    complete = json.loads(result.stdout.splitlines()[-1])["data"]
    dates = [post["suggestedDate"] for post in complete["posts"]]
    assert len(dates) == 7 and dates == sorted(dates) and taken not in dates
    assert {local(date) for date in dates} == {"Tue 08:30", "Thu 08:30", "Sat 10:00"}
    (queue,) = ok("queue")["queues"]
    listed = [(p["postId"], p["at"]) for p in queue["posts"]]
    assert listed[1:] == [(p["postId"], p["suggestedDate"]) for p in complete["posts"]]
    assert queue["freeAt"] == []
    assert all(p["publications"][0]["accountId"] == account for p in queue["posts"])


def test_a_calendar_for_the_queue_without_slots_is_refused_before_writing(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    result = scripted_ai.invoke(["calendar", "7", "--prompt", "shipping weekly", "--queue"])
    assert result.exit_code == 1
    assert "No posting slots for the workspace to fill" in " ".join(result.output.split())
    assert ok("posts", "list")["posts"] == []
