"""What the Nostr adapter reads back from a real relay (tests/nostr_support.py): the
counts of a note (other keys' reactions, reposts and replies, each event once), the
account's past notes page by page within a Pull, and connect/check (the npub the key
derives, a relay that answers, the profile's name)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import NetworkSettings, Published, PublishError
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.nostr import adapter as nostr
from socialgen.publishing.networks.nostr import history
from socialgen.publishing.networks.nostr.keys import Signer, signed_event
from socialgen.publishing.networks.pull import Pull, PullLimits
from tests.conftest import BACKEND
from tests.nostr_support import (
    SETTINGS,
    THREAD,
    LostAnswers,
    NostrRelay,
    adapter_for,
    down_url,
    new_key,
    outgoing,
)
from tests.nostr_support import nostr_relay as nostr_relay  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

NOW = int(time.time())


def put(relay: NostrRelay, signer: Signer, kind: int, content: str, tags: list[list[str]],
        created_at: int = NOW) -> dict[str, Any]:  # fmt: skip
    event = signed_event(signer, kind, content, tags, created_at)
    assert relay.send(event)[2] is True
    return event


def test_metrics_count_each_reaction_repost_and_reply_once(nostr_relay: NostrRelay) -> None:
    author, fan, critic = new_key(), new_key(), new_key()
    published = adapter_for(author, nostr_relay.url).publish(outgoing(THREAD))
    root, part2 = published.part_ids[0], published.part_ids[1]
    p = ["p", author.pubkey]
    put(nostr_relay, fan, 7, "+", [["e", root], p])
    put(nostr_relay, critic, 7, "🔥", [["e", part2], ["e", root], p])  # NIP-25: the last e
    put(nostr_relay, critic, 7, "-", [["e", root], p])  # a dislike is not a like
    put(nostr_relay, fan, 6, "", [["e", root, nostr_relay.url], p])
    put(nostr_relay, fan, 1, "Agreed!", [["e", root, "", "root"], p])
    put(nostr_relay, critic, 1, "Old style reply", [["e", root], p])
    put(nostr_relay, critic, 1, "On part 2", [["e", root, "", "root"], ["e", part2, "", "reply"]])
    put(nostr_relay, critic, 1, "See this", [["e", root, "", "mention"]])  # a quote, no reply
    # The same relay twice (through a forwarding proxy): every event comes back twice.
    with LostAnswers(nostr_relay, drop=0) as mirror:
        counted = adapter_for(author, nostr_relay.url, mirror.url).metrics(published)
    assert (counted.likes, counted.reposts, counted.comments) == (2, 1, 2)
    assert "relays" in counted.note
    # The thread's own second part replies to the root: not a comment from anyone.
    alone = adapter_for(author, nostr_relay.url).metrics(Published(root, "", (root,)))
    assert alone.comments == 3  # without part_ids, part 2 counts as a reply


def test_metrics_need_one_relay_to_answer(nostr_relay: NostrRelay) -> None:
    with pytest.raises(PublishError) as nobody:
        adapter_for(new_key(), down_url()).metrics(Published("ab" * 32, "", ()))
    assert nobody.value.retryable and "No Nostr relay answered" in nobody.value.message


def test_history_reads_own_notes_newest_first_page_by_page(
    nostr_relay: NostrRelay, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "PAGE", 2)
    author, fan = new_key(), new_key()
    notes = [put(nostr_relay, author, 1, f"Note {i}", [], NOW - 100 + i) for i in range(5)]
    twin = put(nostr_relay, author, 1, "Note 2 twin", [], NOW - 98)  # same second as Note 2
    put(nostr_relay, author, 1, "A reply", [["e", notes[0]["id"], "", "root"]], NOW - 50)
    put(nostr_relay, fan, 1, "Someone else's note", [], NOW - 60)
    put(nostr_relay, fan, 7, "+", [["e", notes[3]["id"]], ["p", author.pubkey]])
    adapter = adapter_for(author, nostr_relay.url)

    pull = Pull()
    past = list(adapter.history(None, pull))
    texts = [post.text for post in past]
    assert texts[:2] == ["Note 4", "Note 3"] and texts[-2:] == ["Note 1", "Note 0"]
    assert sorted(texts) == ["Note 0", "Note 1", "Note 2", "Note 2 twin", "Note 3", "Note 4"]
    assert pull.pages >= 4 and pull.stopped is None  # paged, down to an empty page
    by_text = {post.text: post for post in past}
    assert by_text["Note 3"].metrics.likes == 1 and by_text["Note 4"].metrics.likes == 0
    assert by_text["Note 2 twin"].remote_id == twin["id"]
    assert by_text["Note 0"].published_at == datetime.fromtimestamp(NOW - 100, UTC)
    assert by_text["Note 0"].url.startswith("https://njump.me/note1")

    since = datetime.fromtimestamp(NOW - 97, UTC)
    assert [post.text for post in adapter.history(since, Pull())] == ["Note 4", "Note 3"]

    bounded = Pull(PullLimits(pages=2))
    assert [post.text for post in adapter.history(None, bounded)] == ["Note 4", "Note 3"]
    assert bounded.stopped is not None and "2 pages" in bounded.stopped


def test_connect_derives_the_npub_and_stores_the_nsec(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    given = f" {nostr_relay.url}/ , {nostr_relay.url} "
    connected = nostr.connect(given, "", signer.secret.hex(), settings=SETTINGS)
    assert connected.identity.handle == signer.npub and connected.service_url == nostr_relay.url
    assert connected.secret == {"nsec": signer.nsec}  # a hex key is stored as its nsec
    assert connected.identity.profile_url == "https://njump.me/" + signer.npub
    again = nostr.connect(nostr_relay.url, signer.npub, signer.nsec, settings=SETTINGS)
    assert again.identity.handle == signer.npub

    with pytest.raises(BadRequest, match="This private key is npub1") as wrong:
        nostr.connect(nostr_relay.url, new_key().npub, signer.nsec, settings=SETTINGS)
    assert signer.nsec not in wrong.value.message
    with pytest.raises(PublishError) as nobody:
        nostr.connect(down_url(), "", signer.nsec, settings=SETTINGS)
    assert nobody.value.retryable and "No Nostr relay answered" in nobody.value.message
    with pytest.raises(GuardRefused):
        nostr.connect(nostr_relay.url, "", signer.nsec, settings=NetworkSettings())


def test_check_names_the_account_from_its_profile(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    adapter = adapter_for(signer, down_url(), nostr_relay.url)
    assert adapter.check().display_name == signer.npub[:16] + "…"  # no profile yet
    profile = {"name": "shipper", "display_name": "Ship Weekly"}
    put(nostr_relay, signer, 0, json.dumps(profile), [])
    identity = adapter.check()
    assert identity.handle == signer.npub and identity.display_name == "Ship Weekly"


def test_the_service_url_is_the_relays_normalised_and_guarded(nostr_relay: NostrRelay) -> None:
    given = f"{nostr_relay.url}/,{nostr_relay.url}"
    assert nostr.checked_service_url(given, allow_private=True) == nostr_relay.url
    with pytest.raises(BadRequest, match="loopback"):
        nostr.checked_service_url(nostr_relay.url, allow_private=False)
    with pytest.raises(BadRequest, match="Not a relay address"):
        nostr.checked_service_url("https://relay.example.com", allow_private=True)
    assert nostr.DEFAULT_SERVICE_URL.count("wss://") == 3
