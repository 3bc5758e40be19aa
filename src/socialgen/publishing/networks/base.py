"""The contract between the outbox and a social network.

An adapter is built from an account's credentials (decrypted) and does four things:
`check` the credentials, `prepare` a post into the parts the network receives (the
dry run shows them), `publish` those parts exactly once per publication, and read
`metrics` back. Adapters are synchronous: the maintained clients (atproto,
Mastodon.py) are, and the outbox runs them in worker threads.

Exactly once: `publish` receives `OutgoingPost.idempotency_key`, derived from the
publication id, and must pass it to the network where the network has a handle for it
(Mastodon's Idempotency-Key header; a Bluesky record key). An adapter that cannot tell
whether the network accepted a request raises `PublishError(outcome_unknown=True)`:
the outbox then marks the publication `unknown` and never retries it blindly.

A network with no idempotency key (LinkedIn, X, Threads, Telegram, Discord) keeps
exactly once with three things the outbox hands in on `OutgoingPost`: the parts of a
thread an earlier attempt got live (`posted_parts`, never sent again), a callback
that records each part as it goes live (`note_posted`), and the moment an earlier
attempt may have gone live unanswered (`earlier_attempt_at`): an adapter that can read
the account's own posts (X, Threads) looks for the post there before sending, and
after a timeout, and raises `outcome_unknown` only when it cannot tell. A module
declares what it offers with `IDEMPOTENT` (resending is harmless: Bluesky's record
keys, Mastodon's Idempotency-Key, a Nostr event's id) and `FINDS_ITS_POSTS` (it
looks before resending).

Follow-ups (publishing/followups/): a module that can post under a published post
says so with `CAN_REPLY = True`; its `publish` then honours `OutgoingPost.reply_to`
(the first part answers that post, by the same path a thread's next part takes), with
the same exactly-once means as a post. Without the flag a module is not asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings


@dataclass(frozen=True)
class MediaItem:
    """A file attached to a post: a carousel slide image, or the carousel's PDF."""

    kind: str  # "image" | "document"
    data: bytes
    mime_type: str  # image/png, image/jpeg, application/pdf
    alt_text: str = ""  # images: the slide's title and text
    title: str = ""  # documents: shown by LinkedIn above the document
    # A URL the network itself can fetch the file from for a while (a presigned GET
    # of the bucket the files live in; Threads takes images only this way); "" when
    # there is none (the files live in a local folder).
    public_url: str = field(default="", repr=False)


@dataclass(frozen=True)
class OutgoingPost:
    publication_id: str
    idempotency_key: str  # derived from publication_id; stable across retries
    text: str
    media: tuple[MediaItem, ...] = ()
    number_parts: bool = False  # "1/3" markers on a thread, only when the user asks
    # Exactly once without an idempotency key (see the module's docstring):
    # the ids of the thread's first parts an earlier attempt got live, in order: they
    # are never posted again, the next part replies to the last of them;
    posted_parts: tuple[str, ...] = ()
    # when an earlier attempt may have gone live without an answer (a timeout after
    # sending): a network that can read the account's posts looks for it first;
    earlier_attempt_at: datetime | None = None
    # called once each part is live, before the next is sent: the outbox records it.
    part_posted: Callable[[int, str], None] | None = field(default=None, compare=False, repr=False)
    # A follow-up (a first comment, a take-off reply): the id of the published post it
    # goes under, its root part as `Published.part_ids[0]` gave it. The first part
    # replies to it (LinkedIn: a comment on it). Only a module with `CAN_REPLY = True`
    # is handed one; None: a post of its own.
    reply_to: str | None = None

    def note_posted(self, index: int, remote_id: str) -> None:
        if self.part_posted is not None:
            self.part_posted(index, remote_id)


@dataclass(frozen=True)
class PreparedPart:
    """One unit the network receives (one post of a thread), as it will be sent."""

    text: str  # the text as sent (LinkedIn: escaped for its "little text" format)
    details: dict[str, Any] = field(default_factory=dict)  # facets, media names, ...


@dataclass(frozen=True)
class PreparedPost:
    network: str
    parts: tuple[PreparedPart, ...]


@dataclass(frozen=True)
class Published:
    remote_id: str  # the network's id of the first (root) part: URI, status id, URN
    url: str  # where a person sees it
    part_ids: tuple[str, ...] = ()  # every part's id, root first (threads)


@dataclass(frozen=True)
class Metrics:
    likes: int = 0
    reposts: int = 0
    comments: int = 0  # replies on Bluesky and Mastodon
    impressions: int | None = None  # where the network tells (LinkedIn's analytics)
    note: str = ""  # e.g. why a count is missing (a token without the read scope)


@dataclass(frozen=True)
class AccountIdentity:
    """Who the credentials belong to, as the network says it."""

    handle: str  # @name.bsky.social, @user@instance, LinkedIn person URN
    display_name: str
    profile_url: str = ""
    email: str = ""


class PublishError(Exception):
    """A network refused or could not be reached. `message` is the network's own words
    (never a credential). The outbox decides what to do from the flags."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        outcome_unknown: bool = False,
        reconnect: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable  # 429, 5xx, a dropped connection before sending
        self.retry_after = retry_after  # seconds, from Retry-After or rate-limit headers
        self.outcome_unknown = outcome_unknown  # sent, but no answer: may be live
        self.reconnect = reconnect  # credentials refused after one refresh


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]+")
WORDS_LIMIT = 200


def brief(text: str, limit: int = WORDS_LIMIT) -> str:
    """A server's own words as a message may carry them: one printable line of at most
    `limit` characters (an error text is the server's to write, and could be a page)."""
    line = " ".join(_UNPRINTABLE.sub(" ", text).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


# An adapter that refreshed its session or token hands the new secret back here, so
# the account row keeps it (createSession is rate-limited; refresh tokens rotate).
SecretSaver = Callable[[dict[str, str]], None]


class NetworkAdapter(Protocol):
    network: str

    def check(self) -> AccountIdentity: ...

    def prepare(self, post: OutgoingPost) -> PreparedPost: ...

    def publish(self, post: OutgoingPost) -> Published: ...

    def metrics(self, published: Published) -> Metrics: ...


@dataclass(frozen=True)
class PastPost:
    """One of the account's own posts as the network shows it now, with its counts
    (`socialgen accounts history`). `remote_id` is the same id `publish` returns, so a
    post socialgen published is recognised."""

    remote_id: str
    url: str
    text: str  # plain text (Mastodon's HTML read as text)
    published_at: datetime  # UTC
    metrics: Metrics


class PageBudget(Protocol):
    """What a history reader asks before each page (networks/pull.py's `Pull`)."""

    def next_page(self, cursor: Hashable) -> bool: ...


@runtime_checkable
class HistoryReader(Protocol):
    """What an adapter that can read the account's past posts adds (optional: the
    history service asks `isinstance(adapter, HistoryReader)`). Newest first, each
    post once, only the account's own posts (no reposts of others, no replies), down
    to `since` when given. A network that cannot (LinkedIn without the analytics
    permission) raises `socialgen.kit.errors.Forbidden` saying what is missing.
    `pull` (networks/pull.py) is asked before each page: the reader stops when it
    says no, and the guarded clients check it while each answer comes in."""

    def history(self, since: datetime | None, pull: PageBudget) -> Iterator[PastPost]: ...


@runtime_checkable
class RemoteEditor(Protocol):
    """What an adapter whose network lets a post be changed or taken down after it is
    live adds (Telegram's editMessageText and deleteMessage, a Discord webhook's
    message routes): every part of `published` (its `part_ids`) is edited or deleted."""

    def edit(self, published: Published, text: str) -> Published: ...

    def delete(self, published: Published) -> None: ...


@dataclass(frozen=True)
class AccountCredentials:
    """What an adapter is built from: the account's network, service URL (PDS,
    instance, or LinkedIn's API base), handle, and decrypted secret fields
    (app password and session tokens, OAuth tokens)."""

    network: str  # "bluesky" | "mastodon" | "linkedin"
    service_url: str
    handle: str
    secret: dict[str, str]


@dataclass(frozen=True)
class NetworkSettings:
    """What the network modules take from the settings, handed to `build`, `connect`
    and `authorize` by the Runtime's `Networks` (no module reads the settings itself).
    The defaults are the settings' defaults."""

    linkedin_version: str = ""  # LinkedIn-Version (YYYYMM); empty: the client's default
    linkedin_timeout: float = 10.0  # seconds per connect, read or write
    linkedin_oauth_url: str = ""  # LinkedIn's OAuth host; empty: the client's default
    # Seconds per connect, read or write for X, Threads, Telegram, Discord, Nostr relays.
    network_timeout: float = 10.0
    bluesky_appview: str = ""  # where Bluesky metrics are read; empty: the account's PDS
    # Loopback and private hosts pass the SSRF guard (guarded_http.py); off: refused.
    allow_private_urls: bool = False
    history_seconds: float = 300.0  # one history pull's deadline (pull.py)
    history_pages: int = 500  # the most pages one history pull reads

    @classmethod
    def of(cls, settings: AppSettings) -> NetworkSettings:
        return cls(
            linkedin_version=settings.linkedin_version,
            linkedin_timeout=settings.linkedin_timeout,
            linkedin_oauth_url=(settings.linkedin_oauth_url or "").strip(),
            network_timeout=settings.network_timeout,
            bluesky_appview=(settings.bluesky_appview or "").strip(),
            allow_private_urls=settings.allow_private_urls,
            history_seconds=settings.history_deadline.total_seconds(),
            history_pages=settings.history_pages,
        )


DEFAULT_NETWORK_SETTINGS = NetworkSettings()

AdapterFactory = Callable[[AccountCredentials, SecretSaver], NetworkAdapter]


@dataclass(frozen=True)
class Connected:
    """A network accepted the credentials: what the account row keeps."""

    service_url: str  # normalised (no trailing slash)
    identity: AccountIdentity
    secret: dict[str, str]  # encrypted by the caller before it is stored


# Every network's adapter module (networks/<name>/adapter.py: bluesky, mastodon,
# linkedin) exposes, at module level:
#
#   def build(credentials: AccountCredentials, save_secret: SecretSaver, *,
#             settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS) -> NetworkAdapter
#       an adapter for a stored account (no network call while building);
#   def connect(service_url: str, handle: str, secret: str, *,
#               settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS) -> Connected
#       the non-interactive way in: a Bluesky app password, or an access token
#       (Mastodon, LinkedIn) given with --token-stdin; verifies it against the network;
#   DEFAULT_SERVICE_URL: str
#       where the network lives when the user names no service/instance
#       (https://bsky.social, no default for Mastodon, https://api.linkedin.com).
#
# Mastodon and LinkedIn also expose the interactive OAuth way in, through the
# one-shot loopback redirect of publishing/loopback.py:
#
#   def authorize(service_url: str, options: dict[str, str], *, open_browser: bool,
#                 announce: Callable[[str], None], settings: NetworkSettings) -> Connected
#
# `settings` (NetworkSettings) is what the Runtime's settings say for the networks;
# a module that needs none still accepts it.
#
# Errors are PublishError (the network's words) or socialgen.kit.errors.BadRequest.
