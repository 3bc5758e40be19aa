"""`style create NAME --from-top N` and `fromTop` in the API: a style taught with the
creator's own best posts by engagement relative to their usual at the time.

The history is an account that grew tenfold: every newer post out-scores every older one
in raw numbers, so only a relative score picks the older post that did 4x its period.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.insights.relative import relative_scores
from socialgen.kit.limits import MAX_STYLE_POSTS_PER_CALL
from socialgen.store.engine import transaction
from socialgen.store.tables import ContentStyle, StylePost
from socialgen.store.tables.posts import PostStatus
from socialgen.store.tables.publishing import MetricSnapshot
from tests.conftest import Store, days_ago
from tests.test_styles_api import BASE, count
from tests.test_styles_cli import flat, ok, ok_json, refuse, snapshot, stored_profile

OLD_STAR = "Nobody tells you this about hiring: the first ten people set the culture."
NEW_STAR = "We deleted half our roadmap today. Best meeting of the year."


def published(store: Store, content: str, days: float, likes: int, reposts: int = 0) -> str:
    post = store.post(content, status=PostStatus.PUBLISHED, when=days_ago(days))
    with transaction(store.engine) as session:  # as an import stores its counts
        session.add(
            MetricSnapshot(post_id=post.id, taken_at=days_ago(0), likes=likes, reposts=reposts)
        )
    return post.id


def grown_account(store: Store) -> None:
    """60 posts, one every 6 days, on an account whose usual grew smoothly a
    hundredfold, from 10 to 1000 likes; the 11th post did 4x its usual (87), the 46th
    2.5x."""
    for index in range(60):
        days = 360 - 6 * index
        usual = 10 * 100 ** (index / 59)
        if index == 10:
            published(store, OLD_STAR, days, round(4 * usual) - 4, 4)
        elif index == 45:
            published(store, NEW_STAR, days, round(2.5 * usual) - 10, 10)
        else:
            wobble = 1 + 0.1 * (index % 3 - 1)
            published(store, f"Note {index} on shipping.", days, round(usual * wobble))


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def test_cli_teaches_the_best_posts_relative_to_their_period(store: Store) -> None:
    grown_account(store)
    style = ok_json("style", "create", "What works", "--from-top", "2")
    assert [post["content"] for post in style["posts"]] == [OLD_STAR, NEW_STAR]
    assert "best posts" in style["description"]
    profile = stored_profile(store, style["_id"])
    assert profile is not None and profile["examples"] == 2  # trained, as add-posts does

    one = ok_json("style", "create", "Top one", "--from-top", "1", "--description", "Mine")
    assert [post["content"] for post in one["posts"]] == [OLD_STAR]
    assert one["description"] == "Mine"


def test_the_score_is_relative_not_raw(store: Store) -> None:
    """The old star's 87 is below every newer post's: raw engagement would never pick it."""
    grown_account(store)
    from socialgen.insights.history import load_published

    with transaction(store.engine) as session:
        posts = load_published(session, store.workspace_id)
    scores = relative_scores(posts)
    by_text = {post.content: scores[post.post_id] for post in posts}
    assert by_text[OLD_STAR] == max(by_text.values())
    assert sorted(by_text.values())[-2] == by_text[NEW_STAR]
    newer = [post.engagement for post in posts[30:]]
    assert min(newer) > 87  # every newer post beats it raw


def test_cli_person_output(store: Store) -> None:
    grown_account(store)
    output = flat(ok("style", "create", "Best", "--from-top", "3").stdout)
    assert "Created style 'Best'" in output
    assert "Taught with your 3 best post(s) by relative engagement." in output


def test_cli_refuses_more_than_the_history_holds(store: Store) -> None:
    for index in range(3):
        published(store, f"Post {index}", 10 - index, 5 + index)
    store.post("Never measured", status=PostStatus.PUBLISHED, when=days_ago(1))
    refuse(
        store,
        ["style", "create", "Best", "--from-top", "4"],
        "--from-top 4 needs 4 measured published posts and this workspace has 3",
    )
    assert count(store, ContentStyle) == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "--from-top must be a positive integer"),
        (
            str(MAX_STYLE_POSTS_PER_CALL + 1),
            f"--from-top must be at most {MAX_STYLE_POSTS_PER_CALL}",
        ),
        ("99999999999999999999999", f"--from-top must be at most {MAX_STYLE_POSTS_PER_CALL}"),
    ],
)
def test_cli_bounds_are_the_example_post_limit(store: Store, value: str, message: str) -> None:
    grown_account(store)
    refuse(store, ["style", "create", "Best", "--from-top", value], message)


def test_api_creates_a_style_from_the_top_posts(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    grown_account(store)
    response = client.post(
        f"{BASE}/{store.workspace_id}", headers=headers, json={"name": "Works", "fromTop": 2}
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert [post["content"] for post in data["posts"]] == [OLD_STAR, NEW_STAR]
    assert count(store, StylePost) == 2

    plain = client.post(f"{BASE}/{store.workspace_id}", headers=headers, json={"name": "Empty"})
    assert plain.status_code == 201 and plain.json()["data"]["posts"] == []


@pytest.mark.parametrize(
    ("from_top", "message"),
    [
        (0, "fromTop must be a positive integer"),
        (6, "fromTop must be at most 5"),
        (10**30, "fromTop must be at most 5"),
        (4, "fromTop 4 needs 4 measured published posts and this workspace has 3"),
        ("2", "Invalid fromTop: Input should be a valid integer"),
        (2.0, "Invalid fromTop: Input should be a valid integer"),
        (True, "Invalid fromTop: Input should be a valid integer"),
    ],
)
def test_api_refusals_write_nothing(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    from_top: Any,
    message: str,
) -> None:
    for index in range(3):
        published(store, f"Post {index}", 10 - index, 5 + index)
    before = snapshot(store)
    response = client.post(
        f"{BASE}/{store.workspace_id}",
        headers=headers,
        json={"name": "Works", "fromTop": from_top},
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["success"] is False and message in body["message"], body
    assert snapshot(store) == before


def test_openapi_declares_from_top(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]["CreateStyleBody"]
    declared = schema["properties"]["fromTop"]["anyOf"][0]
    assert declared == {"type": "integer", "minimum": 1, "maximum": MAX_STYLE_POSTS_PER_CALL}
