"""Nostr: a post as kind-1 notes signed with the user's key (BIP-340 over secp256k1)
and sent to the account's relays (NIP-01); counts and past notes read back from them.

The contract is networks/base.py. What is Nostr's own:
- the account is a key: handle = its npub, secret = {"nsec": ...}, and its
  service URL the relays, comma-separated ws(s):// URLs (keys.py, relays.py);
- a note is published when at least one relay says OK (or "duplicate:", it has it
  already); the relays that refused are logged; when none took it the error carries
  their own words;
- exactly once: a note's id is the hash of what it says (keys.py), so the same event
  sent again is the same note, which the relays answer "duplicate" (IDEMPOTENT). For
  a retry to make the same event, its `created_at` must be the same: the first
  attempt uses the time it runs, which nothing records before the note is out, so a
  retry (`post.earlier_attempt_at` given) first looks on the relays for the author's
  note with the same text and the same parent since then and, when found, takes it
  (and sends that very event again to every relay: harmless, it fills the relays that
  missed it). Otherwise it signs the note with created_at = earlier_attempt_at, the
  same on every later attempt, so from then on even a look that misses resends the
  same event (FINDS_ITS_POSTS). Thread parts are recorded as they go live
  (`note_posted`) and never sent again; the next replies to the last one (NIP-10).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PageBudget,
    PastPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.nostr.history import VIEWER, counts, note_url, parent_of
from socialgen.publishing.networks.nostr.history import read_history as read_notes
from socialgen.publishing.networks.nostr.keys import Signer, signed_event, signer_from, verify_event
from socialgen.publishing.networks.nostr.relays import RelayAnswer, Relays, checked, relay_urls
from socialgen.publishing.networks.nostr.text import hashtags, parts_of

NETWORK = "nostr"
DEFAULT_SERVICE_URL = "wss://relay.damus.io,wss://nos.lol,wss://relay.primal.net"
IDEMPOTENT = True  # the same signed event sent again is the same note (its id)
FINDS_ITS_POSTS = True  # a retry looks for the earlier attempt's note first
CAN_REPLY = True  # a follow-up is a NIP-10 reply to the post (OutgoingPost.reply_to)
LOOK_BACK_SLACK = 600  # seconds before earlier_attempt_at still looked at (clock skew)
LOOK_LIMIT = 500  # notes of the author read when looking for an earlier attempt's
RATE_LIMIT_WAIT = 60.0  # relays say "rate-limited:" without saying for how long

logger = logging.getLogger("socialgen.publishing")


class NostrAdapter:
    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
        *,
        timeout: float | None = None,
    ) -> None:
        self._credentials = credentials
        self._settings = settings
        # network_timeout (NetworkSettings): per relay, to connect and for each answer.
        self._timeout = settings.network_timeout if timeout is None else timeout

    def _signer(self) -> Signer:
        return signer_from(self._credentials.secret.get("nsec", ""))

    def _relays(self) -> Relays:
        urls = relay_urls(self._credentials.service_url)
        return Relays(urls, allow_private=self._settings.allow_private_urls, timeout=self._timeout)

    # --- the protocol -------------------------------------------------------------

    def check(self) -> AccountIdentity:
        signer = self._signer()
        with self._relays() as relays:
            return identity(relays, signer)

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        signer = self._signer()
        urls = relay_urls(self._credentials.service_url)
        refused = _guard_refusals(urls, self._settings.allow_private_urls)
        if len(refused) == len(urls):
            raise GuardRefused(refused[0])  # a dry run meets the guard as publish would
        parts = []
        for index, (text, details) in enumerate(parts_of(post.text, post.number_parts, post.media)):
            if index == 0:
                details = {**details, "author": signer.npub, "relays": urls}
                if refused:
                    details["relaysRefused"] = refused
            parts.append(PreparedPart(text=text, details=details))
        return PreparedPost(network=NETWORK, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        signer = self._signer()
        texts = [text for text, _ in parts_of(post.text, post.number_parts)]
        posted = list(post.posted_parts)
        if posted and len(posted) >= len(texts):  # every part live already: nothing to send
            return Published(remote_id=posted[0], url=note_url(posted[0]), part_ids=tuple(posted))
        with self._relays() as relays:
            earlier = self._earlier_notes(relays, signer, post)
            since = post.earlier_attempt_at
            base = int(since.timestamp()) if since is not None else int(time.time())
            hint = relays.relays[0].url
            for index in range(len(posted), len(texts)):
                parent = posted[-1] if posted else post.reply_to
                event = _found(earlier, texts[index], parent)
                if event is None:
                    # A follow-up's notes hang under the post it answers (its root).
                    above = [post.reply_to] if post.reply_to else []
                    tags = _tags(signer, texts[index], [*above, *posted], hint)
                    event = signed_event(signer, 1, texts[index], tags, base + index)
                    _settle(relays.send_event(event), index, len(texts))
                else:  # live already: sent again so the relays that missed it have it
                    logger.info("nostr: note %s found live from an earlier attempt", event["id"])
                    relays.send_event(event)
                posted.append(event["id"])
                post.note_posted(index, event["id"])
        root = posted[0]
        return Published(remote_id=root, url=note_url(root), part_ids=tuple(posted))

    def metrics(self, published: Published) -> Metrics:
        with self._relays() as relays:
            found = counts(relays, [published.remote_id], own=published.part_ids)
        return found[published.remote_id]

    def history(self, since: datetime | None, pull: PageBudget) -> Iterator[PastPost]:
        """The account's own notes (no replies) with their counts, from its relays."""
        signer = self._signer()
        with self._relays() as relays:
            yield from read_notes(relays, signer.pubkey, since, pull)

    # --- inside -------------------------------------------------------------------

    def _earlier_notes(
        self, relays: Relays, signer: Signer, post: OutgoingPost
    ) -> list[dict[str, Any]]:
        """The author's notes since an earlier attempt may have gone live (none to look
        for on a first attempt). No relay answering is an error: sending blind could
        make a second note beside the first attempt's."""
        if post.earlier_attempt_at is None:
            return []
        since = int(post.earlier_attempt_at.timestamp()) - LOOK_BACK_SLACK
        query = {"authors": [signer.pubkey], "kinds": [1], "since": since, "limit": LOOK_LIMIT}
        events = relays.query([query]).events.values()
        return [e for e in events if verify_event(e) and e["pubkey"] == signer.pubkey]


def _found(notes: list[dict[str, Any]], text: str, parent: str | None) -> dict[str, Any] | None:
    """An earlier attempt's note for this part: same text, replying to the same note."""
    same = [e for e in notes if e["content"] == text and parent_of(e) == parent]
    return min(same, key=lambda e: (e["created_at"], e["id"])) if same else None


def _tags(signer: Signer, text: str, posted: list[str], hint: str) -> list[list[str]]:
    """NIP-10 marked e tags to the thread's root and the part replied to (a direct reply
    to the root has the root tag only), the author's p tag, NIP-24 t tags."""
    tags: list[list[str]] = []
    if posted:
        tags.append(["e", posted[0], hint, "root"])
        if len(posted) > 1:
            tags.append(["e", posted[-1], hint, "reply"])
        tags.append(["p", signer.pubkey])
    tags.extend(["t", tag] for tag in hashtags(text))
    return tags


def _settle(answers: list[RelayAnswer], index: int, total: int) -> None:
    """Whether the note is live (one relay took it is enough), else the error that says
    why in the relays' words. Resending is harmless (the same event), so a relay that
    could not be reached or did not answer makes the error retryable."""
    what = "The note" if total == 1 else f"Part {index + 1} of {total}"
    took = [answer for answer in answers if answer.accepted]
    if took:
        others = [answer.describe() for answer in answers if not answer.accepted]
        if others:
            logger.warning("nostr: %s is live, not everywhere: %s", what, "; ".join(others))
        return
    said = "; ".join(answer.describe() for answer in answers)
    if all(answer.guard_refused for answer in answers):
        raise GuardRefused(f"{what} was not sent: {said}")
    open_ = [a for a in answers if not a.guard_refused and (not a.answered or a.rate_limited)]
    if open_:
        limited = all(answer.rate_limited for answer in open_)
        raise PublishError(
            f"No Nostr relay took {what.lower()} yet: {said}",
            retryable=True,
            retry_after=RATE_LIMIT_WAIT if limited else None,
        )
    raise PublishError(f"Every Nostr relay refused {what.lower()}: {said}")


def _guard_refusals(urls: list[str], allow_private: bool) -> list[str]:
    """The guard's refusals of the relays, in words (a host that does not resolve now
    is not refused: publish will say it could not be reached)."""
    refused = []
    for url in urls:
        try:
            checked(url, allow_private)
        except GuardRefused as error:
            refused.append(error.message)
        except PublishError:
            continue
    return refused


def identity(relays: Relays, signer: Signer) -> AccountIdentity:
    """Who the key is (its npub), once a relay answers; the name from the profile
    (kind 0) when a relay has one."""
    found = relays.query([{"kinds": [0], "authors": [signer.pubkey], "limit": 1}]).events
    profiles = sorted(
        (e for e in found.values() if verify_event(e) and e["pubkey"] == signer.pubkey),
        key=lambda e: -e["created_at"],
    )
    name = ""
    if profiles:
        try:
            meta = json.loads(profiles[0]["content"])
        except ValueError:
            meta = {}
        if isinstance(meta, dict):
            name = str(meta.get("display_name") or meta.get("name") or "").strip()[:200]
    return AccountIdentity(
        handle=signer.npub,
        display_name=name or signer.npub[:16] + "…",
        profile_url=VIEWER + signer.npub,
    )


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> NostrAdapter:
    """`save_secret` is never called: a key does not expire."""
    return NostrAdapter(credentials, settings)


def checked_service_url(given: str, *, allow_private: bool) -> str:
    """The account's relays, normalised and through the guard: what accounts/service.py's
    `service_url_for` asks of a network whose service is not one http(s) URL. A host
    that does not resolve now is kept (connect says whether a relay answers)."""
    urls = relay_urls(given)
    refused = _guard_refusals(urls, allow_private)
    if refused:
        raise BadRequest("; ".join(refused))
    return ",".join(urls)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """A private key (nsec1..., or 64 hex digits) and the relays (`service_url`,
    comma-separated; empty: the default ones). `handle`, when given, must be the key's
    npub. Verified by one relay at least answering a query."""
    signer = signer_from(secret)
    wanted = handle.strip()
    if wanted and wanted not in (signer.npub, signer.pubkey):
        raise BadRequest(f"This private key is {signer.npub}, not {wanted[:80]}")
    urls = relay_urls(service_url.strip() or DEFAULT_SERVICE_URL)
    allow, timeout = settings.allow_private_urls, settings.network_timeout
    with Relays(urls, allow_private=allow, timeout=timeout) as relays:
        who = identity(relays, signer)
    return Connected(service_url=",".join(urls), identity=who, secret={"nsec": signer.nsec})
