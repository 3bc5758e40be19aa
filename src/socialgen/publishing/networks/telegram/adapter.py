"""Telegram: a channel's posts through the user's own bot (the Bot API, by hand over
httpx), the bot an admin of the channel who may post.

The contract is networks/base.py. What is Telegram's own:
- the account is a channel (`@name` or its numeric chat id) and a bot token from
  @BotFather; `connect` asks who the bot is (getMe), what the channel is called
  (getChat) and whether the bot may post there (getChatMember);
- text is plain (no parse_mode), 4,096 characters a message; a longer post goes out
  as replies, media first with the text's start as caption (text.py, media.py);
- exactly once: the Bot API has no idempotency key and cannot read a channel's posts
  back, so each part is recorded as it goes live (`note_posted`) and never sent
  again, and a part sent without an answer is `outcome_unknown` (client.py):
  `IDEMPOTENT` and `FINDS_ITS_POSTS` are False;
- a post can be edited and deleted afterwards, every part of it (editor.py);
- the Bot API gives no views, reactions or comments of a channel post, and no past
  posts: `metrics` says so, and there is no `history`.
"""

from __future__ import annotations

import logging

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
from socialgen.publishing.networks.guarded_http import check_destination
from socialgen.publishing.networks.telegram.client import MethodMissing, TelegramClient
from socialgen.publishing.networks.telegram.editor import delete_parts, edit_parts
from socialgen.publishing.networks.telegram.media import (
    answered_chat,
    message_ids,
    part_id,
    read_part,
    unit_call,
)
from socialgen.publishing.networks.telegram.text import (
    chat_of,
    check_token,
    chosen_media,
    message_url,
    post_units,
)

logger = logging.getLogger("socialgen.publishing")

NETWORK = "telegram"
DEFAULT_SERVICE_URL = "https://api.telegram.org"
IDEMPOTENT = False  # no idempotency key: a message sent twice is two messages
FINDS_ITS_POSTS = False  # a bot cannot read a channel's past messages
CAN_REPLY = True  # a follow-up is a message replying to the post (OutgoingPost.reply_to)
TOKEN_FIELD = "bot_token"
NO_HISTORY = "the Bot API cannot read a channel's past messages"
NO_METRICS = (
    "Telegram's Bot API does not give a channel post's views, reactions or comments "
    "(the channel's own statistics show them to its admins)"
)
POSTING_STATUSES = ("creator", "administrator")


class TelegramAdapter:
    network = NETWORK

    def __init__(self, credentials: AccountCredentials, settings: NetworkSettings) -> None:
        self._credentials = credentials
        self._settings = settings

    def _client(self) -> TelegramClient:
        token = check_token(self._credentials.secret.get(TOKEN_FIELD, ""))
        return client_for(self._credentials.service_url, token, self._settings)

    @property
    def _chat(self) -> str:
        return chat_of(self._credentials.handle)

    def check(self) -> AccountIdentity:
        with self._client() as client:
            return identity(client, self._chat)

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no other request that would meet it.
        check_destination(
            "Telegram",
            self._credentials.service_url,
            allow_private=self._settings.allow_private_urls,
        )
        units = post_units(post.text, post.media, post.number_parts)
        _, _, left_out = chosen_media(post.media)
        parts = []
        for index, unit in enumerate(units):
            details = unit.detail()
            if index == 0 and left_out:
                details["leftOut"] = left_out
            if index > 0:
                details["replyTo"] = "the part before"
            parts.append(PreparedPart(text=unit.text, details=details))
        return PreparedPost(network=self.network, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        units = post_units(post.text, post.media, post.number_parts)  # refusals first
        chat = self._chat
        ids = list(post.posted_parts)
        linked = chat
        # A thread's next part answers the last one live; a follow-up, the post (base.py).
        parent = ids[-1] if ids else post.reply_to
        reply_to = read_part(parent).first if parent else None
        with self._client() as client:
            # Parts an earlier attempt got live are never sent again (base.py).
            for index in range(len(ids), len(units)):
                unit = units[index]
                call = unit_call(unit, chat, reply_to)
                what = f"sending part {index + 1} of {len(units)} to {chat} ({call.method})"
                result = client.call(
                    call.method, call.fields, what=what, creates=True, files=call.files
                )
                kept, linked = answered_chat(result, chat)
                numbers = message_ids(result, unit.kind)
                ids.append(part_id(kept, numbers, unit.kind))
                post.note_posted(index, ids[-1])
                reply_to = numbers[0]
        return published(ids, linked if linked.startswith("@") else chat)

    def metrics(self, published: Published) -> Metrics:
        return Metrics(note=NO_METRICS)

    def edit(self, published: Published, text: str) -> Published:
        """Every part's text changed in place (editor.py)."""
        with self._client() as client:
            ids = edit_parts(client, published.part_ids or (published.remote_id,), text)
        return published_again(published, ids)

    def delete(self, published: Published) -> None:
        """Every message of every part deleted (editor.py)."""
        with self._client() as client:
            delete_parts(client, published.part_ids or (published.remote_id,))


def published(ids: list[str], linked: str) -> Published:
    """The post's root (its first part's first message), its link, every part."""
    if not ids:
        raise PublishError("Telegram: the post had no part to send")
    root = read_part(ids[0])
    remote_id = f"{root.chat}/{root.first}"
    url = message_url(linked, str(root.first)) or message_url(root.chat, str(root.first))
    return Published(remote_id=remote_id, url=url, part_ids=tuple(ids))


def published_again(before: Published, ids: list[str]) -> Published:
    return Published(remote_id=before.remote_id, url=before.url, part_ids=tuple(ids))


def client_for(service_url: str, token: str, settings: NetworkSettings) -> TelegramClient:
    return TelegramClient(
        service_url,
        token,
        timeout=settings.network_timeout,
        allow_private=settings.allow_private_urls,
    )


def identity(client: TelegramClient, chat: str) -> AccountIdentity:
    """The channel, as the bot sees it: its title, and whether the bot may post there
    (getChat and getChatMember; a server without them, such as the test emulator, is
    taken at its word with a warning: the first post then says whether it can)."""
    bot = client.call("getMe", {}, what="reading who the bot is")
    bot_id = bot.get("id") if isinstance(bot, dict) else None
    bot_name = f"@{bot.get('username')}" if isinstance(bot, dict) else "the bot"
    if not isinstance(bot_id, int):
        raise PublishError("Telegram's getMe answer names no bot")
    try:
        found = client.call("getChat", {"chat_id": chat}, what=f"reading the chat {chat}")
    except MethodMissing:
        logger.warning("Telegram: the server has no getChat; %s taken as given", chat)
        return AccountIdentity(handle=chat, display_name=chat, profile_url=_profile(chat))
    info = found if isinstance(found, dict) else {}
    title = str(info.get("title") or info.get("username") or chat)
    username = info.get("username")
    profile = _profile(f"@{username}" if isinstance(username, str) and username else chat)
    _check_may_post(client, chat, bot_id, bot_name, str(info.get("type") or ""))
    return AccountIdentity(handle=chat, display_name=title, profile_url=profile)


def _check_may_post(
    client: TelegramClient, chat: str, bot_id: int, bot_name: str, kind: str
) -> None:
    try:
        member = client.call(
            "getChatMember",
            {"chat_id": chat, "user_id": bot_id},
            what=f"reading the bot's rights in {chat}",
        )
    except MethodMissing:
        logger.warning("Telegram: the server has no getChatMember; %s's rights not checked", chat)
        return
    status = member.get("status") if isinstance(member, dict) else None
    if kind == "channel":
        may = status == "creator" or (
            status == "administrator" and member.get("can_post_messages") is True
        )
    else:  # a group: a member may write unless restricted
        may = status in (*POSTING_STATUSES, "member") or (
            status == "restricted" and member.get("can_send_messages") is True
        )
    if not may:
        raise PublishError(
            f"Telegram: {bot_name} may not post in {chat} (its status there: {status}). In "
            f"the channel's settings, Administrators > Add Admin, add {bot_name} with the "
            "right to post messages (and to edit and delete them), then connect again"
        )


def _profile(chat: str) -> str:
    return f"https://t.me/{chat[1:]}" if chat.startswith("@") else ""


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> TelegramAdapter:
    """An adapter for a stored account; a bot token never changes by itself, so
    `save_secret` is never called."""
    return TelegramAdapter(credentials, settings)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """The channel (`handle`: @name or chat id) and the bot token (`secret`), checked
    with Telegram before anything is stored."""
    url = (service_url or DEFAULT_SERVICE_URL).strip().rstrip("/")
    token = check_token(secret)
    chat = chat_of(handle)
    with client_for(url, token, settings) as client:
        who = identity(client, chat)
    return Connected(service_url=url, identity=who, secret={TOKEN_FIELD: token})
