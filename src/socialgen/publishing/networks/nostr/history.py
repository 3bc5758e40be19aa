"""Reading notes and their reactions back from the account's relays.

Nostr keeps no counters: a like is a kind-7 event, a repost a kind-6 one, a reply a
kind-1 note, each its author's own, held by whichever relays it was sent to. The
counts here are what the account's relays hold, counted once per distinct event
(the same reaction on three relays is one), after checking each event's id and
signature (a relay's answer is not trusted: a made-up event is not counted). A
reaction that only reached relays the account does not use is not seen.

History: the author's kind-1 notes newest first, a page at a time with `until`
(NIP-01: since <= created_at <= until), replies (notes with an `e` tag) skipped,
bounded by networks/pull.py's Pull.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from socialgen.publishing.networks.answers import moment_from
from socialgen.publishing.networks.base import Metrics, PageBudget, PastPost
from socialgen.publishing.networks.nostr.keys import note_name, verify_event
from socialgen.publishing.networks.nostr.relays import NETWORK, Relays

PAGE = 100  # notes asked per page of history
COUNTED = 5000  # reactions of one kind read per query (relays cap `limit` too)
VIEWER = "https://njump.me/"  # a public web view of any note, by its NIP-19 name
SEEN_ON_RELAYS = "counted from the account's relays (reactions sent only to others are not seen)"


def note_url(event_id: str) -> str:
    return VIEWER + note_name(event_id)


def _e_tags(event: dict[str, Any]) -> list[list[str]]:
    return [tag for tag in event["tags"] if len(tag) >= 2 and tag[0] == "e"]


def parent_of(event: dict[str, Any]) -> str | None:
    """The note a kind-1 note replies to (NIP-10): the `reply`-marked e tag, else the
    `root` one, else (the older positional form) the last e tag; a `mention` is not
    a reply."""
    tags = _e_tags(event)
    marked = {tag[3]: tag[1] for tag in tags if len(tag) >= 4}
    if "reply" in marked or "root" in marked:
        return marked.get("reply") or marked["root"]
    unmarked = [tag[1] for tag in tags if len(tag) < 4 or tag[3] == ""]
    return unmarked[-1] if unmarked else None


def target_of(event: dict[str, Any]) -> str | None:
    """The note a reaction (kind 7: NIP-25, the last e tag) or a repost (kind 6:
    NIP-18, its e tag) is about."""
    tags = _e_tags(event)
    return tags[-1][1] if tags else None


def counts(relays: Relays, ids: list[str], own: Iterable[str] = ()) -> dict[str, Metrics]:
    """Likes, reposts and replies of each note in `ids`, from the relays. `own`: the
    thread's own parts, which are not replies from anyone else."""
    if not ids:
        return {}
    filters = [{"kinds": [kind], "#e": ids, "limit": COUNTED} for kind in (7, 6, 1)]
    found = relays.query(filters).events
    skip = set(own)
    tally = {note: [0, 0, 0] for note in ids}
    for event in found.values():
        if event.get("id") in skip or not verify_event(event):
            continue
        kind = event["kind"]
        if kind == 7 and event["content"].strip() != "-":  # "-": a dislike (NIP-25)
            target, slot = target_of(event), 0
        elif kind == 6:
            target, slot = target_of(event), 1
        elif kind == 1:
            target, slot = parent_of(event), 2
        else:
            continue
        if target in tally:
            tally[target][slot] += 1
    return {
        note: Metrics(likes=n[0], reposts=n[1], comments=n[2], note=SEEN_ON_RELAYS)
        for note, n in tally.items()
    }


def read_history(
    relays: Relays, pubkey: str, since: datetime | None, pull: PageBudget
) -> Iterator[PastPost]:
    """The author's own notes (not replies), newest first, each once, down to `since`."""
    seen: set[str] = set()
    until: int | None = None
    floor = int(since.timestamp()) if since is not None else None
    while pull.next_page((until, len(seen))):
        query: dict[str, Any] = {"authors": [pubkey], "kinds": [1], "limit": PAGE}
        if until is not None:
            query["until"] = until
        if floor is not None:
            query["since"] = floor
        page = [
            event
            for event in relays.query([query]).events.values()
            if verify_event(event) and event["pubkey"] == pubkey
        ]
        page = [e for e in page if floor is None or e["created_at"] >= floor]
        if not page:
            return
        fresh = sorted(
            (event for event in page if event["id"] not in seen),
            key=lambda event: (-event["created_at"], event["id"]),
        )
        oldest = min(event["created_at"] for event in page)
        # Relays read `until` differently (NIP-01: inclusive; nostr-relay: exclusive),
        # and a second may hold more notes than a page: the next page asks again from
        # the oldest second on (oldest + 1 covers it either way); a page that brings
        # nothing new steps below what it asked, so the read always ends.
        until = oldest + 1 if fresh else min(oldest, (until or oldest + 1) - 1)
        seen.update(event["id"] for event in fresh)
        notes = [event for event in fresh if not _e_tags(event)]
        measured = counts(relays, [event["id"] for event in notes])
        for event in notes:
            yield PastPost(
                remote_id=event["id"],
                url=note_url(event["id"]),
                text=event["content"],
                published_at=_moment(event["created_at"]),
                metrics=measured[event["id"]],
            )


def _moment(created_at: int) -> datetime:
    try:
        moment = datetime.fromtimestamp(created_at, UTC)
    except (OverflowError, OSError, ValueError):
        moment = datetime.max.replace(tzinfo=UTC)  # refused below as out of range
    return moment_from(NETWORK, moment, "a note's created_at")
