"""An edit between an attempt whose outcome is unknown and its retry (issue 25, 3).

A network that dedupes on the idempotency key answers a retry with the post the first
attempt created, whatever text the retry carries: an edit made in between would be
reported `published` while the old text is live. So the text is frozen until the
publication settles, and the worker sends and records the text of the attempt that
may be live. The network is the scripted one (tests/fakes/scripted_network.py: it
dedupes as Mastodon and Bluesky do, and can fail after the post went out); the
same defect on mastodon-mock's real process is in test_publish_edits_live.py.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import col, select
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.files.backends import files_of
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import SocialgenError
from socialgen.posts.service import update_content
from socialgen.publishing.outbox.runner import publish_now, publish_pass
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import Post, PostVersion
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now
from tests.outbox_support import add_account, due_publication, publication

pytest_plugins = ["tests.outbox_support"]  # the network fixtures

FIRST = "First words, as sent."
SECOND = "Second words, edited later."
runner = CliRunner()


NETWORKS: dict[str, Any] = {}  # this test's (conftest's `networks`): _this_tests_networks


@pytest.fixture(autouse=True)
def _this_tests_networks(networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.NETWORKS", networks)


def _terms() -> PublishTerms:
    return PublishTerms(networks=Networks(NETWORKS, keys=keys_now()), files=files_of(Runtime()))


def one_pass(store: Store, later: float = 0.0) -> dict[str, int]:
    with ThreadPoolExecutor(2) as executor:
        now = utcnow() + timedelta(seconds=later)
        return publish_pass(store.engine, "test-worker", executor, now=now, terms=_terms()).counts()


def edit(store: Store, post_id: str, text: str) -> None:
    with transaction(store.engine) as session:
        update_content(session, store.workspace_id, post_id, text)


def stored(store: Store, post_id: str) -> tuple[str, int]:
    """The post's text and how many versions it has."""
    content = store.scalar(select(Post.content).where(col(Post.id) == post_id))
    versions = store.scalar(
        select(PostVersion.version)
        .where(col(PostVersion.post_id) == post_id)
        .order_by(col(PostVersion.version).desc())
    )
    return str(content), int(versions)


def test_an_edit_waits_while_a_retry_would_resend_the_text_that_may_be_live(
    store: Store, network: ScriptedNetwork
) -> None:
    post_id, pid = due_publication(store, add_account(store, "@edit.test"), content=FIRST)
    # The network creates the post, then answers 500: the outcome is unknown to us.
    network.fail_next("500 Server Error", retryable=True, retry_after=60, after_sending=True)
    assert one_pass(store)["retrying"] == 1
    assert [p.text for p in network.published] == [FIRST]
    before = stored(store, post_id)

    with pytest.raises(SocialgenError) as refused:
        edit(store, post_id, SECOND)
    assert refused.value.status_code == 409
    said = refused.value.message
    assert "Cannot edit the post now" in said and "@edit.test" in said
    assert "socialgen publish-due" in said and f"socialgen posts unschedule {post_id}" in said
    result = runner.invoke(app, ["posts", "edit", post_id, "--content", SECOND])
    assert result.exit_code == 1 and "Cannot edit the post now" in result.output
    assert "Traceback" not in result.output
    assert stored(store, post_id) == before  # nothing changed, no new version

    assert one_pass(store, later=61)["published"] == 1
    row = publication(store, pid)
    assert row.state == "published" and row.message == ""
    assert row.options["sent_text"] == FIRST and "unsettled_text" not in row.options
    assert [p.text for p in network.published] == [FIRST]  # the repeat got the first post


def test_a_retry_sends_the_text_that_may_be_live_and_says_so_when_the_post_changed(
    store: Store, network: ScriptedNetwork
) -> None:
    """The text changed by a path that skips the check (here, the store itself): the
    retry still sends the first attempt's text under the key, records it, and says so."""
    post_id, pid = due_publication(store, add_account(store, "@raced.test"), content=FIRST)
    network.fail_next("502 Bad Gateway", retryable=True, retry_after=60, after_sending=False)
    assert one_pass(store)["retrying"] == 1
    assert network.published == []  # this time nothing went out, but we cannot know
    with transaction(store.engine) as session:
        session.connection().execute(
            update(Post).where(col(Post.id) == post_id).values(content=SECOND)
        )

    assert one_pass(store, later=61)["published"] == 1
    assert [p.text for p in network.published] == [FIRST]
    row = publication(store, pid)
    assert row.state == "published" and row.options["sent_text"] == FIRST
    assert "text of an earlier attempt" in row.message and "not on this account" in row.message


def test_after_a_refusal_the_post_can_be_fixed_and_sent_again(
    store: Store, network: ScriptedNetwork
) -> None:
    """A clear no from the network settles the attempt: nothing is live, edit freely."""
    account = add_account(store, "@strict.test")
    post_id, pid = due_publication(store, account, content=FIRST)
    network.fail_next("422 Text too long", retryable=False)
    assert one_pass(store)["failed"] == 1
    assert "unsettled_text" not in publication(store, pid).options

    edit(store, post_id, SECOND)
    rows = publish_now(
        store.engine, store.workspace_id, post_id, [account], retry=True, terms=_terms()
    )
    assert [r.state for r in rows] == ["published"]
    assert [p.text for p in network.published] == [SECOND]
    assert publication(store, pid).options["sent_text"] == SECOND


def test_an_unknown_publication_freezes_the_text_until_it_is_settled(
    store: Store, linkedin: ScriptedNetwork
) -> None:
    account = add_account(store, "urn:li:person:edit", "linkedin")
    post_id, pid = due_publication(store, account, content=FIRST)
    linkedin.fail_next("timed out after sending", outcome_unknown=True)
    assert one_pass(store)["unknown"] == 1

    with pytest.raises(SocialgenError) as refused:
        edit(store, post_id, SECOND)
    said = refused.value.message
    assert refused.value.status_code == 409 and "is unknown" in said
    assert f"socialgen posts mark-published {post_id}" in said and "--retry" in said
    # --retry (the user found nothing live) queues it again: still the same text.
    rows = publish_now(
        store.engine, store.workspace_id, post_id, [account], retry=True, terms=_terms()
    )
    assert [r.state for r in rows] == ["published"]
    assert [p.text for p in linkedin.published] == [FIRST, FIRST]
    assert publication(store, pid).options["sent_text"] == FIRST


def test_the_http_edit_answers_409_and_changes_nothing(
    store: Store, network: ScriptedNetwork, client: TestClient
) -> None:
    post_id, _ = due_publication(store, add_account(store, "@http.test"), content=FIRST)
    network.fail_next("503 Service Unavailable", retryable=True, retry_after=60)
    assert one_pass(store)["retrying"] == 1
    before = stored(store, post_id)
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    url = f"/api/v1/ai-conversation/post/{store.workspace_id}/{post_id}"

    answer: Any = client.put(url, headers=headers, json={"content": SECOND})
    assert answer.status_code == 409, answer.text
    body = answer.json()
    assert body["success"] is False and "Cannot edit the post now" in body["message"]
    assert stored(store, post_id) == before


@pytest.mark.parametrize("content", ["Hello\x00world", "\u200b\u200b\u2060"])
def test_content_stored_before_the_checks_fails_before_it_is_sent(
    store: Store, network: ScriptedNetwork, content: str
) -> None:
    if "\x00" in content and store.url.startswith("postgresql"):
        pytest.skip("PostgreSQL cannot hold a NUL: only SQLite stores from before could")
    post_id, pid = due_publication(store, add_account(store, "@nul.test"), content=FIRST)
    # Written past every way in, as a store from before the content checks holds it.
    with store.engine.begin() as connection:
        connection.execute(update(Post).where(col(Post.id) == post_id).values(content=content))
    assert one_pass(store)["failed"] == 1
    assert network.published == []
    row = publication(store, pid)
    assert row.state == "failed"
    assert "Content" in row.message
