"""A Discord webhook URL, read: the API base it lives on, the webhook's id, its token.

The URL Discord shows (Server Settings > Integrations > Webhooks > Copy Webhook URL)
is `https://discord.com/api/webhooks/{id}/{token}`; older ones are on
discordapp.com, some carry an API version (`/api/v10/webhooks/...`). The token is the
secret: anyone holding the URL can post to the channel. So nothing here ever puts the
URL, or the token, in a message: a URL that is not understood is refused in general
words.

The account's `service_url` is the API base (`https://discord.com/api`, or a test's
`http://127.0.0.1:PORT/api`); requests go there, with the id and token of the URL. A
webhook URL must live on that base: Discord's own hosts are one and the same service.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from socialgen.kit.errors import BadRequest

DISCORD_API = "https://discord.com/api"
# Every host Discord serves the same API on (the web app's stable, beta and canary
# builds, and the old domain).
DISCORD_HOSTS = frozenset(
    f"{prefix}{domain}"
    for prefix in ("", "ptb.", "canary.")
    for domain in ("discord.com", "discordapp.com")
)
_PATH = re.compile(
    r"^(?P<prefix>(?:/[^/]+)*?/api)(?:/v\d{1,3})?/webhooks/(?P<id>\d{1,20})/"
    r"(?P<token>[A-Za-z0-9_\-.]{1,200})/?$"
)
_VERSION_TAIL = re.compile(r"/v\d{1,3}$")
NOT_A_WEBHOOK = (
    "That is not a Discord webhook URL: copy it from the channel's settings (Server "
    "Settings > Integrations > Webhooks > Copy Webhook URL); it looks like "
    "https://discord.com/api/webhooks/ID/TOKEN"
)


@dataclass(frozen=True)
class Webhook:
    base: str  # the API base the URL names: scheme://host[:port][/prefix]/api
    webhook_id: str
    token: str = ""

    def url_on(self, service_url: str) -> str:
        """The webhook's URL on `service_url` (what the account keeps, as its secret)."""
        return f"{service_url.rstrip('/')}/webhooks/{self.webhook_id}/{self.token}"


def parse_webhook_url(raw: str) -> Webhook:
    """The webhook a URL names; a BadRequest that never repeats the URL otherwise."""
    text = raw.strip()
    try:
        parts = urlsplit(text)
        port = parts.port  # a port that is not a number raises here
    except ValueError:
        raise BadRequest(NOT_A_WEBHOOK) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise BadRequest(NOT_A_WEBHOOK)
    if parts.query or parts.fragment:
        # `?thread_id=` (a thread of a forum channel) is a way to post this adapter
        # does not take: refused rather than posting to the channel instead.
        raise BadRequest(
            "The webhook URL carries a query (such as ?thread_id=): give the webhook's "
            "own URL, which posts to its channel"
        )
    if parts.username or parts.password:
        raise BadRequest(NOT_A_WEBHOOK)
    found = _PATH.match(parts.path)
    if found is None:
        raise BadRequest(NOT_A_WEBHOOK)
    host = parts.hostname.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    base = f"{parts.scheme.lower()}://{netloc}{found['prefix']}"
    return Webhook(base=base, webhook_id=found["id"], token=found["token"])


def normalise_service(service_url: str) -> str:
    """An API base as accounts keep it: no trailing slash, no API version (the client
    adds its own), Discord's own hosts as https://discord.com/api."""
    url = _VERSION_TAIL.sub("", service_url.strip().rstrip("/"))
    parts = urlsplit(url)
    if _is_discord(parts.scheme, parts.hostname or "", parts.port, parts.path):
        return DISCORD_API
    return url


def same_service(service_url: str, webhook: Webhook) -> bool:
    return normalise_service(service_url) == normalise_service(webhook.base)


def host_of(url: str) -> str:
    """The host (and port) of `url`, for a message: never its path, which may hold a token."""
    return urlsplit(url).netloc.rsplit("@", 1)[-1] or url[:40]


def _is_discord(scheme: str, host: str, port: int | None, path: str) -> bool:
    return (
        scheme.lower() == "https"
        and host.lower() in DISCORD_HOSTS
        and port in (None, 443)
        and path.rstrip("/") == "/api"
    )
