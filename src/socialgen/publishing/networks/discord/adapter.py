"""Discord: posts to one channel through its webhook (no bot, no OAuth).

The contract is networks/base.py. What is Discord's own:
- the account is a channel's webhook; its URL (with the token) is the secret, its
  `service_url` the API base the requests go to (webhook.py);
- a message holds 2,000 characters: a longer post goes as consecutive messages
  (text.py); images and the carousel's PDF are attachments of the first (media.py);
- no message pings anyone: `allowed_mentions` parses nothing, on edits too;
- exactly once: no idempotency key and no way to list the channel through a webhook
  (IDEMPOTENT and FINDS_ITS_POSTS are False). Parts an earlier attempt got live
  (`posted_parts`) are never sent again, each part is noted as soon as it is live, and
  a message sent without an answer is an unknown outcome (client.py);
- a webhook's own messages can be edited and deleted (base.RemoteEditor);
- no metrics (a webhook reads no reactions) and no history.
"""

from __future__ import annotations

import time
from collections.abc import Callable
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
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.networks.discord import client as discord_client
from socialgen.publishing.networks.discord.client import WebhookClient
from socialgen.publishing.networks.discord.media import Attachment, attachments
from socialgen.publishing.networks.discord.text import NO_MENTIONS, part_details, split
from socialgen.publishing.networks.discord.webhook import (
    DISCORD_API,
    host_of,
    normalise_service,
    parse_webhook_url,
    same_service,
)
from socialgen.publishing.networks.guarded_http import GuardRefused, check_destination

NETWORK = "discord"
DEFAULT_SERVICE_URL = DISCORD_API
IDEMPOTENT = False  # a webhook has no idempotency key: a resend is a second message
FINDS_ITS_POSTS = False  # a webhook cannot read the channel's messages
# A webhook's message cannot reply to another message (Execute Webhook takes no
# message_reference): a follow-up is not posted here, and the dry run says so.
CAN_REPLY = False
WEB = "https://discord.com/channels"  # where a person sees a channel and its messages
SECRET_FIELD = "webhook_url"
NO_HISTORY = "a webhook can post to its channel but not read it"
NO_METRICS = (
    "Discord webhooks cannot read reactions, replies or views: no counts for this "
    "message (a bot in the server could, socialgen does not use one)"
)


class DiscordAdapter:
    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        *,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
        timeout: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._service_url = normalise_service(credentials.service_url)
        self._handle = credentials.handle
        self._webhook = parse_webhook_url(credentials.secret.get(SECRET_FIELD, ""))
        self._settings = settings
        # The network_timeout setting, unless a caller (a test) names its own.
        self._timeout = settings.network_timeout if timeout is None else timeout
        self._sleep = sleep

    def _client(self) -> WebhookClient:
        return WebhookClient(
            self._service_url,
            self._webhook.webhook_id,
            self._webhook.token,
            allow_private=self._settings.allow_private_urls,
            timeout=self._timeout,
            sleep=self._sleep,
        )

    # --- the protocol -------------------------------------------------------------------

    def check(self) -> AccountIdentity:
        client = self._client()
        try:
            return identity(client.webhook(), self._handle)
        finally:
            client.close()

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no request that would meet it.
        check_destination(
            "Discord", self._service_url, allow_private=self._settings.allow_private_urls
        )
        texts, files, left_out = _messages(post)
        parts = []
        for index, text in enumerate(texts):
            details = part_details(texts, index)
            if index == 0 and files:
                details["files"] = [attachment.view() for attachment in files]
            if index == 0 and left_out:
                details["leftOut"] = left_out
            parts.append(PreparedPart(text=text, details=details))
        return PreparedPost(network=NETWORK, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        texts, files, _ = _messages(post)  # refused here, before anything is sent
        live = list(post.posted_parts)
        client = self._client()
        try:
            webhook = client.webhook()  # a deleted webhook is said before any message
            for index in range(len(live), len(texts)):
                carried = files if index == 0 else []  # the files go with the first part
                message_id = _message_id(
                    client.send_message(_payload(texts[index], carried), carried)
                )
                # Recorded before the next part goes: a retry never sends this one again.
                post.note_posted(index, message_id)
                live.append(message_id)
        finally:
            client.close()
        return Published(remote_id=live[0], url=message_url(webhook, live[0]), part_ids=tuple(live))

    def metrics(self, published: Published) -> Metrics:
        return Metrics(note=NO_METRICS)

    # --- base.RemoteEditor --------------------------------------------------------------

    def edit(self, published: Published, text: str) -> Published:
        """The messages of `published` with `text`: each part edited in place; a text
        that now needs more messages gets them after the last, one that needs fewer
        has its extra messages deleted. Files stay as they were."""
        texts = split(text)
        old = list(published.part_ids) or [published.remote_id]
        kept: list[str] = []
        client = self._client()
        try:
            webhook = client.webhook()
            for message_id, part in zip(old, texts, strict=False):
                client.edit(message_id, {"content": part, "allowed_mentions": NO_MENTIONS})
                kept.append(message_id)
            for part in texts[len(old) :]:
                kept.append(_message_id(client.send_message(_payload(part, []), [])))
            for message_id in old[len(texts) :]:
                client.delete(message_id)
        finally:
            client.close()
        return Published(remote_id=kept[0], url=message_url(webhook, kept[0]), part_ids=tuple(kept))

    def delete(self, published: Published) -> None:
        """Every message of `published`; one Discord no longer has is already gone."""
        client = self._client()
        try:
            for message_id in published.part_ids or (published.remote_id,):
                client.delete(message_id)
        finally:
            client.close()


def _messages(post: OutgoingPost) -> tuple[list[str], list[Attachment], list[str]]:
    files, left_out = attachments(post.media)
    texts = split(post.text, number_parts=post.number_parts)
    if not texts[0] and not files:
        raise PublishError("Discord: the post has no text and no files (Discord refuses it)")
    return texts, files, left_out


def _payload(text: str, files: list[Attachment]) -> dict[str, Any]:
    payload: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
    if text:
        payload["content"] = text
    if files:
        payload["attachments"] = [attachment.entry() for attachment in files]
    return payload


def _message_id(message: dict[str, Any]) -> str:
    message_id = str(message.get("id") or "")
    if not message_id.isdigit():
        # 2xx, so Discord took the message, but its answer is not one: unknown.
        raise discord_client.unknown("Discord's answer named no message id")
    return message_id


def message_url(webhook: dict[str, Any], message_id: str) -> str:
    """Where a person sees the message (the web app's link; "" when the webhook names
    no server, which a channel webhook always does)."""
    guild, channel = webhook.get("guild_id"), webhook.get("channel_id")
    if not (_snowflake(guild) and _snowflake(channel)):
        return ""
    return f"{WEB}/{guild}/{channel}/{message_id}"


def identity(webhook: dict[str, Any], handle: str) -> AccountIdentity:
    """The account a webhook is: `#channel` as the user named it, else `#<channel id>`;
    its display name the webhook's."""
    channel, guild = webhook.get("channel_id"), webhook.get("guild_id")
    if not _snowflake(channel):
        raise PublishError(
            "This webhook posts to no channel (an application's webhook?): create one in "
            "a channel's settings (Integrations > Webhooks)"
        )
    name = handle.strip().lstrip("#").strip().lower()
    return AccountIdentity(
        handle=f"#{name or channel}",
        display_name=str(webhook.get("name") or "Discord webhook")[:200],
        profile_url=f"{WEB}/{guild}/{channel}" if _snowflake(guild) else "",
    )


def _snowflake(value: object) -> bool:
    return isinstance(value, str | int) and str(value).isdigit()


# --- the module's way in (networks/base.py) -------------------------------------------


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> DiscordAdapter:
    """A webhook's secret never changes: `save_secret` is never called."""
    return DiscordAdapter(credentials, settings=settings)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """The webhook URL (`secret`) on the API base `service_url`, checked with Discord
    (GET the webhook: no auth needed). `handle`: the channel's name, optional."""
    webhook = parse_webhook_url(secret)
    service = normalise_service(service_url)
    if not same_service(service, webhook):
        raise BadRequest(
            f"The webhook URL is on {host_of(webhook.base)}, not on the account's "
            f"service {host_of(service)}: give serviceUrl {normalise_service(webhook.base)}"
        )
    stored = {SECRET_FIELD: webhook.url_on(service)}
    adapter = DiscordAdapter(
        AccountCredentials(NETWORK, service, handle, stored), settings=settings
    )
    try:
        who = adapter.check()
    except PublishError as error:
        if error.retryable or error.outcome_unknown or error.reconnect:
            raise  # the service words it: unavailable, or the webhook refused
        if isinstance(error, GuardRefused):
            raise  # the guard's refusal, as it is
        raise BadRequest(error.message) from None
    return Connected(service_url=service, identity=who, secret=stored)
