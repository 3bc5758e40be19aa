"""`posts schedule ID --at best` and POST .../schedule {"at": "best"}: the next free
best time from the workspace's own history, or a clear refusal when it is too short."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.http.server import create_app
from socialgen.kit.clock import parse_iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Post, PostStatus
from socialgen.store.tables.publishing import SocialAccount
from tests.conftest import LiveServer, Store, serving
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history

runner = CliRunner()


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def schedule_api(server: LiveServer, store: Store, post_id: str, body: dict[str, Any]) -> Any:
    return httpx.post(
        f"{server.base_url}/api/v1/ai-conversation/post/{store.workspace_id}/{post_id}/schedule",
        headers={"x-api-key": store.api_key()},
        json=body,
        timeout=60,  # "best" fits the history's slots: seconds on a loaded machine
    )


def test_too_little_history_says_how_many_more_posts_and_changes_nothing(
    store: Store, live_server: LiveServer
) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(12, seed=1))
    draft = store.post("A draft to place")
    wanted = "Not enough history for a best time: 12 measured published posts, 30 needed (18 more)."
    result = run("posts", "schedule", draft.id, "--at", "best")
    assert result.exit_code == 1
    assert wanted in " ".join(result.output.split())
    response = schedule_api(live_server, store, draft.id, {"at": "best"})
    assert response.status_code == 400
    assert response.json()["message"].startswith(wanted)
    with transaction(store.engine) as session:
        post = session.get(Post, draft.id)
        assert post is not None and post.status == PostStatus.DRAFT and post.scheduled_at is None


def test_best_places_each_post_in_a_free_slot_day_ahead_of_now(store: Store) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(80, seed=2))
    assert run("config", "set", "timezone", "Europe/Paris").exit_code == 0
    drafts = [store.post(f"Draft {i}").id for i in range(12)]
    moments = []
    for post_id in drafts[:10]:
        result = run("posts", "schedule", post_id, "--at", "best", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["status"] == "scheduled"
        moments.append(parse_iso(data["scheduledAt"]))
    # A server reads its settings once, when it starts (`config set` reaches it at its
    # next start): started after the zone is set, it places posts in Paris's slots too.
    with serving(create_app(Runtime())) as server:
        for post_id in drafts[10:]:
            response = schedule_api(server, store, post_id, {"at": "best"})
            assert response.status_code == 200, response.text
            moments.append(parse_iso(response.json()["data"]["scheduledAt"]))
    paris = ZoneInfo("Europe/Paris")
    local = [moment.astimezone(paris) for moment in moments]
    assert all(moment > utcnow() + timedelta(minutes=10) for moment in moments)
    slot_days = {(moment.date(), moment.hour // 6) for moment in local}
    assert len(slot_days) == len(moments)  # never two posts in one slot of one day
    # Moving a scheduled post to "best" again does not count its own old time as taken.
    again = run("posts", "schedule", drafts[0], "--at", "best", "--json")
    assert again.exit_code == 0, again.output


def test_best_with_an_account_queues_the_publication_for_that_time(
    store: Store, live_server: LiveServer
) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(40, seed=3))
    with transaction(store.engine) as session:
        session.add(
            SocialAccount(
                workspace_id=store.workspace_id,
                network="mastodon",
                handle="@me@example.social",
                service_url="https://example.social",
                secret_ciphertext="x",
            )
        )
    draft = store.post("Going out at the best time")
    response = schedule_api(
        live_server, store, draft.id, {"at": "best", "accountIds": ["@me@example.social"]}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    (publication,) = data["publications"]
    assert publication["state"] == "queued" and publication["dueAt"] == data["scheduledAt"]
    bad = schedule_api(live_server, store, draft.id, {"at": "whenever"})
    assert bad.status_code == 400 and "Not an ISO 8601 time" in bad.json()["message"]
    missing = schedule_api(live_server, store, "no-such-post", {"at": "best"})
    assert missing.status_code == 404
