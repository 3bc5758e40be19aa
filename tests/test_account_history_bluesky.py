"""`socialgen accounts history` on Bluesky: the real PDS and AppView of
tests/bluesky_support.py (run under `flock /tmp/bluesky.lock`). The posts, likes,
reposts, quotes and replies are written with the accounts' own atproto clients, never
through socialgen; the secrets check of tests/publish_e2e_support.py ends each test.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from socialgen.insights.history import load_published
from socialgen.kit.clock import parse_iso
from socialgen.publishing.networks.bluesky import adapter as bluesky
from socialgen.store.engine import read_session
from socialgen.store.tables import Post, Publication
from tests.bluesky_support import (
    POSTS,
    Account,
    BlueskyNetwork,
    bluesky_network_fixture,  # noqa: F401  (the fixture)
)
from tests.conftest import Store
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

DONE = {"complete": True, "stopped": None}  # the pull ran to its end, within its bounds

SENTENCE = "Small teams ship weekly because feedback beats a long plan."
LONG_POST = " ".join([SENTENCE] * 12)  # a thread of three on Bluesky


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.delenv(bluesky.APPVIEW_ENV, raising=False)


def write(network: BlueskyNetwork, who: Account, collection: str, **record: Any) -> dict[str, str]:
    """A record written by `who` with their own client; its {uri, cid}."""
    client = who.client(network.pds)
    record.setdefault("createdAt", "2026-01-01T00:00:00.000Z")
    answer = client.com.atproto.repo.create_record(
        {"repo": who.did, "collection": collection, "record": {"$type": collection, **record}}
    )
    return {"uri": str(answer.uri), "cid": str(answer.cid)}


def remote_ids(store: Store) -> dict[str, str]:
    """Publication remote id -> post content, as stored."""
    with read_session(store.engine) as session:
        rows = session.execute(
            select(Publication.remote_id, Post.content).join(
                Post,
                Post.id == Publication.post_id,  # type: ignore[arg-type]
            )
        ).all()
    return {str(remote): content for remote, content in rows}


def test_bluesky_history_pulls_own_posts_with_counts_since_a_date_once(
    store: Store, bluesky_network: BlueskyNetwork, witness: Witness
) -> None:
    person, fan = bluesky_network.account("hist"), bluesky_network.account("fan")
    witness.secret(person.app_password, person.password, fan.password)
    account = witness.cli_json(
        "accounts", "add", "bluesky", person.handle, "--service", bluesky_network.pds,
        "--password-stdin", stdin=person.app_password + "\n",
    )["id"]  # fmt: skip
    witness.stored_secrets(store)
    ours = store.post(LONG_POST)
    (row,) = witness.cli_json("posts", "publish", ours.id, "--to", account)["publications"]
    assert row["state"] == "published", row
    january = write(bluesky_network, person, POSTS, text="From January", createdAt=JANUARY)
    june = write(bluesky_network, person, POSTS, text="From June", createdAt=JUNE)
    write(bluesky_network, person, POSTS, text="Replying to myself", reply=thread(june))
    theirs = write(bluesky_network, fan, POSTS, text="The fan's own post")
    write(bluesky_network, person, "app.bsky.feed.repost", subject=theirs)
    write(bluesky_network, fan, "app.bsky.feed.like", subject=june)
    write(bluesky_network, fan, "app.bsky.feed.repost", subject=june)
    write(bluesky_network, fan, "app.bsky.feed.like", subject=january)
    write(bluesky_network, fan, POSTS, text="Quoting", embed={"$type": QUOTE, "record": june})
    write(bluesky_network, fan, POSTS, text="Nice", reply=thread(ref_of(bluesky_network, row)))
    bluesky_network.process_all()

    since = witness.cli_json("accounts", "history", account, "--since", "2025-03-01")
    assert since == {
        "accountId": account,
        "fetched": 2,
        "created": 1,
        "updated": 1,
        "skipped": 0,
        **DONE,
    }
    held = remote_ids(store)
    assert held == {row["remoteId"]: LONG_POST, june["uri"]: "From June"}  # thread parts: no

    every = witness.cli_json("accounts", "history", account)
    assert (every["fetched"], every["created"], every["updated"], every["skipped"]) == (3, 1, 0, 2)
    assert remote_ids(store)[january["uri"]] == "From January"
    again = witness.cli_json("accounts", "history", person.handle, "--since", "2024-12-31")
    assert (again["created"], again["updated"], again["skipped"]) == (0, 0, 3)
    assert store.scalar(select(func.count()).select_from(Post)) == 3

    with read_session(store.engine) as session:
        measured = {p.content: p for p in load_published(session, store.workspace_id)}
    assert set(measured) == {LONG_POST, "From January", "From June"}
    from_june = measured["From June"]
    # Reposts are reposts + quotes; comments the replies (here the author's own one).
    assert (from_june.likes, from_june.reposts, from_june.comments) == (1, 2, 1)
    assert measured["From January"].likes == 1
    assert measured["From January"].published_at == parse_iso(JANUARY)
    assert measured[LONG_POST].post_id == ours.id and measured[LONG_POST].comments == 1
    url = store.scalar(select(Post.post_url).where(Post.id == from_june.post_id))  # type: ignore[arg-type]
    assert url == f"https://bsky.app/profile/{person.handle}/post/{june['uri'].rsplit('/', 1)[-1]}"


JANUARY = "2025-01-10T12:00:00.000Z"
JUNE = "2025-06-10T12:00:00.000Z"
QUOTE = "app.bsky.embed.record"


def thread(ref: dict[str, str]) -> dict[str, dict[str, str]]:
    return {"root": ref, "parent": ref}


def ref_of(network: BlueskyNetwork, row: dict[str, Any]) -> dict[str, str]:
    """{uri, cid} of what socialgen published, read back from the PDS."""
    from atproto import Client  # type: ignore[import-untyped]

    repo, collection, rkey = str(row["remoteId"]).removeprefix("at://").split("/")
    params = {"repo": repo, "collection": collection, "rkey": rkey}
    answer = Client(base_url=network.pds).com.atproto.repo.get_record(params)
    return {"uri": str(answer.uri), "cid": str(answer.cid)}
