"""The routes of the fake Threads API (threads_server.py): what Meta answers, and its
errors as Meta words them (`{"error": {"message", "type", "code", "error_subcode",
"fbtrace_id"}}`, HTTP 400 for a refused call)."""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from tests.fakes.threads_server import Recorded

USER_ID = "17841400000000001"
USERNAME = "ada.codes"
LIMIT = 500
LINKS = 5
CONTAINER_PARAMS = frozenset(
    {
        "media_type",
        "text",
        "reply_to_id",
        "image_url",
        "video_url",
        "is_carousel_item",
        "children",
        "reply_control",
        "alt_text",
        "access_token",
    }
)
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.I)
CAROUSEL_CHILDREN = (2, 20)
IMAGE_BYTES = 8 * 1024 * 1024  # Meta's largest image
# What the media type of a published container reads as (GET /{media-id}).
PUBLISHED_TYPE = {"TEXT": "TEXT", "IMAGE": "IMAGE", "CAROUSEL": "CAROUSEL_ALBUM"}


@dataclass(frozen=True)
class Fetched:
    """What the fake got when it fetched an image_url, as Meta's servers do: the HTTP
    status (0: no answer at all) and the bytes."""

    status: int
    data: bytes = b""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Token:
    scopes: frozenset[str]
    long_lived: bool = True


@dataclass
class Container:
    id: str
    text: str
    reply_to: str | None
    polls_left: int
    status: str = "IN_PROGRESS"
    media_id: str = ""
    media_type: str = "TEXT"
    carousel_item: bool = False
    images: list[bytes] = field(default_factory=list)  # fetched from image_url
    alt_texts: list[str] = field(default_factory=list)


@dataclass
class Media:
    id: str
    text: str
    reply_to: str | None
    timestamp: datetime
    media_type: str = "TEXT"
    insights: dict[str, int] = field(default_factory=dict)
    images: list[bytes] = field(default_factory=list)  # an image post's, a carousel's
    alt_texts: list[str] = field(default_factory=list)


@dataclass
class State:
    host: str = ""
    tokens: dict[str, Token] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)
    media: dict[str, Media] = field(default_factory=dict)
    apps: dict[str, tuple[str, str]] = field(default_factory=dict)  # id: (secret, redirect)
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code: (app, redirect)
    container_polls: int = 1  # status reads that say IN_PROGRESS before FINISHED
    quota_used: int = 0  # posts published elsewhere in the last 24 hours
    quota_total: int = 250
    refreshed: list[str] = field(default_factory=list)  # tokens refreshed
    _ids: Any = field(default_factory=lambda: itertools.count(18_000_000_000_000_001))

    def new_token(self, token: str, scopes: frozenset[str], long_lived: bool = True) -> str:
        token = token or f"THAAfake{next(self._ids)}"
        self.tokens[token] = Token(frozenset(scopes), long_lived)
        return token

    def new_media(self, text: str, reply_to: str | None, when: datetime, kind: str) -> Media:
        media = Media(str(next(self._ids)), text, reply_to, when, kind)
        self.media[media.id] = media
        return media

    def used(self, replies: bool) -> int:
        day_ago = datetime.now(UTC) - timedelta(days=1)
        own = [m for m in self.media.values() if m.timestamp > day_ago]
        return sum(1 for m in own if (m.reply_to is not None) == replies) + (
            0 if replies else self.quota_used
        )


def graph_error(
    status: int,
    code: int,
    message: str,
    headers: dict[str, str] | None = None,
    subcode: int = 0,
    user_msg: str = "",
) -> Answer:
    error: dict[str, Any] = {
        "message": message,
        "type": "OAuthException",
        "code": code,
        "fbtrace_id": "AbCdEfGh123",
    }
    if subcode:
        error["error_subcode"] = subcode
    if user_msg:
        error["error_user_msg"] = user_msg
    return Answer(status, {"error": error}, dict(headers or {}))


def count(text: str) -> int:
    """Meta's count: an emoji (a symbol, or past the first plane) is its UTF-8 bytes."""
    return sum(
        len(c.encode())
        if ord(c) > 0xFFFF or unicodedata.category(c) == "So" or c in "\u200d\ufe0f"
        else 1
        for c in text
    )


def route(state: State, request: Recorded, fetched: Fetched | None = None) -> Answer:
    """Meta's answer; `fetched`: what the request's image_url gave when the server
    fetched it (outside the lock) before routing."""
    path, params = request.path, request.params
    if path == "/oauth/authorize":
        return _authorize(state, params)
    if path == "/oauth/access_token" and request.method == "POST":
        return _code_exchange(state, params)
    token = _token(request)
    if path in ("/access_token", "/refresh_access_token"):
        return _long_lived(state, path, params, token)
    if not path.startswith("/v1.0/"):
        return graph_error(404, 100, f"Unknown path {path}")
    if token is None or token not in state.tokens:
        return graph_error(400, 190, "Invalid OAuth access token - Cannot parse access token")
    scopes = state.tokens[token].scopes
    parts = path.removeprefix("/v1.0/").strip("/").split("/")
    if parts[0] in ("me", USER_ID):
        return _user(state, request, parts[1:], scopes, fetched)
    if len(parts) == 2 and parts[1] == "insights":
        if "threads_manage_insights" not in scopes:
            return _no_permission()
        return _insights(state, parts[0], params)
    if len(parts) == 1 and request.method == "GET":
        return _node(state, parts[0], params)
    return graph_error(400, 100, f"Unsupported {request.method.lower()} request")


def _user(
    state: State,
    request: Recorded,
    rest: list[str],
    scopes: frozenset[str],
    fetched: Fetched | None = None,
) -> Answer:
    edge = rest[0] if rest else ""
    params = request.params
    if request.method == "POST" and "threads_content_publish" not in scopes:
        return _no_permission()
    if edge == "" and request.method == "GET":
        return Answer(
            200,
            {
                "id": USER_ID,
                "username": USERNAME,
                "name": "Ada Lovelace",
                "threads_profile_picture_url": "https://cdn.example/ada.jpg",
            },
        )
    if edge == "threads" and request.method == "POST":
        return _create(state, params, scopes, fetched)
    if edge == "threads_publish" and request.method == "POST":
        return _publish(state, params)
    if edge in ("threads", "replies") and request.method == "GET":
        if edge == "replies" and "threads_read_replies" not in scopes:
            return _no_permission()
        return _listing(state, edge, params)
    if edge == "threads_publishing_limit":
        return Answer(
            200,
            {
                "data": [
                    {
                        "quota_usage": state.used(False),
                        "config": _config(state.quota_total),
                        "reply_quota_usage": state.used(True),
                        "reply_config": _config(1000),
                    }
                ]
            },
        )
    return graph_error(400, 100, f"Unsupported {request.method.lower()} request")


def _create(
    state: State, params: dict[str, str], scopes: frozenset[str], fetched: Fetched | None
) -> Answer:
    unknown = sorted(set(params) - CONTAINER_PARAMS)
    if unknown:
        return graph_error(400, 100, f"(#100) Param {unknown[0]} is not a valid parameter")
    media_type = params.get("media_type")
    if media_type not in ("TEXT", "IMAGE", "CAROUSEL"):
        return graph_error(400, 100, "(#100) media_type must be TEXT, IMAGE or CAROUSEL here")
    item = params.get("is_carousel_item", "false")
    if item not in ("true", "false"):
        return graph_error(400, 100, "(#100) is_carousel_item must be a boolean")
    carousel_item = item == "true"
    if carousel_item and media_type != "IMAGE":
        return graph_error(400, 100, "(#100) Only an image or a video can be a carousel item")
    if "image_url" in params and media_type != "IMAGE":
        return graph_error(400, 100, "(#100) image_url is only for media_type IMAGE")
    if "children" in params and media_type != "CAROUSEL":
        return graph_error(400, 100, "(#100) children is only for media_type CAROUSEL")
    text = params.get("text", "")
    if media_type == "TEXT" and not text:
        return graph_error(400, 100, "(#100) The parameter text is required")
    if count(text) > LIMIT:
        return graph_error(400, 100, f"(#100) Text is too long: at most {LIMIT} characters")
    if len({m.lower() for m in _LINK.findall(text)}) > LINKS:
        return graph_error(400, 100, "THREADS_API__LINK_LIMIT_EXCEEDED")
    reply_to = params.get("reply_to_id") or None
    if reply_to is not None:
        if carousel_item:
            return graph_error(400, 100, "(#100) A carousel item cannot be a reply")
        if "threads_manage_replies" not in scopes:
            return _no_permission()
        if reply_to not in state.media:
            return graph_error(400, 100, f"(#100) Object {reply_to} does not exist")
    container = Container(str(next(state._ids)), text, reply_to, state.container_polls)
    container.media_type, container.carousel_item = media_type, carousel_item
    if media_type == "IMAGE":
        refused = _image(container, params, fetched)
        if refused is not None:
            return refused
    if media_type == "CAROUSEL":
        refused = _children(state, container, params.get("children", ""))
        if refused is not None:
            return refused
    state.containers[container.id] = container
    return Answer(200, {"id": container.id})


def _image(container: Container, params: dict[str, str], fetched: Fetched | None) -> Answer | None:
    """Meta fetches the image at once: a URL it cannot fetch, or that gives no JPEG or
    PNG, is refused as Meta refuses it (its words for Instagram's API)."""
    url = params.get("image_url", "")
    if not url:
        return graph_error(400, 100, "(#100) The parameter image_url is required")
    if fetched is None or fetched.status != 200:
        return graph_error(
            400,
            9004,
            "Media download has failed.: The media could not be fetched from this uri",
            subcode=2207052,
            user_msg=f"The media could not be fetched from this uri: {url}",
        )
    data = fetched.data
    if not (data.startswith(b"\xff\xd8\xff") or data.startswith(b"\x89PNG\r\n\x1a\n")):
        return graph_error(
            400,
            9004,
            "The image format is not supported. Supported formats: JPEG, PNG",
            subcode=2207005,
        )
    if len(data) > IMAGE_BYTES:
        return graph_error(400, 9004, "The image is too large (at most 8 MB)", subcode=2207004)
    container.images, container.alt_texts = [data], [params.get("alt_text", "")]
    return None


def _children(state: State, container: Container, children: str) -> Answer | None:
    ids = [child for child in children.split(",") if child]
    low, high = CAROUSEL_CHILDREN
    if not low <= len(ids) <= high:
        return graph_error(
            400, 100, f"(#100) A carousel takes {low} to {high} children, not {len(ids)}"
        )
    for child_id in ids:
        child = state.containers.get(child_id)
        if child is None:
            return graph_error(400, 100, f"(#100) Object {child_id} does not exist")
        if not child.carousel_item:
            return graph_error(400, 100, f"(#100) {child_id} is not a carousel item")
        if child.status != "FINISHED":
            return graph_error(
                400, 9007, f"(#9007) Carousel item {child_id} is not ready", subcode=2207027
            )
        container.images += child.images
        container.alt_texts += child.alt_texts
    return None


def _publish(state: State, params: dict[str, str]) -> Answer:
    if set(params) - {"creation_id", "access_token"}:
        return graph_error(400, 100, "(#100) creation_id is the only parameter")
    container = state.containers.get(params.get("creation_id", ""))
    if container is None:
        return graph_error(400, 24, "The requested resource does not exist", subcode=4279009)
    if container.carousel_item:
        return graph_error(
            400, 100, "(#100) A carousel item cannot be published alone: publish its carousel"
        )
    if container.status != "FINISHED":
        return graph_error(
            400,
            9007,
            "The media is not ready for publishing, please wait for a moment",
            subcode=2207027,
        )
    replies = container.reply_to is not None
    if state.used(replies) >= (1000 if replies else state.quota_total):
        return graph_error(400, 9, "You have reached the publishing limit", subcode=2207042)
    kind = PUBLISHED_TYPE[container.media_type]
    media = state.new_media(container.text, container.reply_to, datetime.now(UTC), kind)
    media.images, media.alt_texts = list(container.images), list(container.alt_texts)
    container.status, container.media_id = "PUBLISHED", media.id
    return Answer(200, {"id": media.id})


def _node(state: State, node: str, params: dict[str, str]) -> Answer:
    fields = set(params.get("fields", "id").split(","))
    container = state.containers.get(node)
    if container is not None:
        if container.status == "IN_PROGRESS":
            container.polls_left -= 1
            if container.polls_left < 0:
                container.status = "FINISHED"
        body: dict[str, Any] = {"id": node}
        if "status" in fields:
            body["status"] = container.status
        return Answer(200, body)
    media = state.media.get(node)
    if media is None:
        return graph_error(400, 100, f"(#100) Object {node} does not exist")
    return Answer(200, _media_fields(state, media, fields))


def _media_fields(state: State, media: Media, fields: set[str]) -> dict[str, Any]:
    every = {
        "id": media.id,
        "text": media.text,
        "timestamp": media.timestamp.strftime("%Y-%m-%dT%H:%M:%S+0000"),
        "permalink": f"https://www.threads.com/@{USERNAME}/post/C{media.id[-6:]}",
        "media_type": media.media_type,
        "is_quote_post": False,
    }
    if media.reply_to is not None:
        every["replied_to"] = {"id": media.reply_to}
    return {k: v for k, v in every.items() if k in fields or k == "id"}


def _listing(state: State, edge: str, params: dict[str, str]) -> Answer:
    fields = set(params.get("fields", "id").split(","))
    since = int(params["since"]) if params.get("since") else None
    limit = min(int(params.get("limit") or 25), 100)
    start = int(params["after"].removeprefix("cursor-")) if params.get("after") else 0
    listed = [
        m
        for m in sorted(state.media.values(), key=lambda m: m.timestamp, reverse=True)
        if (m.reply_to is not None) == (edge == "replies")
        and (since is None or m.timestamp.timestamp() >= since)
    ]
    page = listed[start : start + limit]
    body: dict[str, Any] = {"data": [_media_fields(state, m, fields) for m in page]}
    if page:
        body["paging"] = {
            "cursors": {"before": f"cursor-{start}", "after": f"cursor-{start + len(page)}"}
        }
        if start + len(page) < len(listed):
            query = urlencode({**params, "after": f"cursor-{start + len(page)}"})
            body["paging"]["next"] = f"{state.host}/v1.0/{USER_ID}/{edge}?{query}"
    return Answer(200, body)


def _insights(state: State, node: str, params: dict[str, str]) -> Answer:
    media = state.media.get(node)
    if media is None:
        return graph_error(400, 100, f"(#100) Object {node} does not exist")
    names = params.get("metric", "").split(",")
    return Answer(
        200,
        {
            "data": [
                {
                    "name": n,
                    "period": "lifetime",
                    "values": [{"value": media.insights.get(n, 0)}],
                    "id": f"{node}/insights/{n}/lifetime",
                }
                for n in names
                if n
            ]
        },
    )


def _authorize(state: State, params: dict[str, str]) -> Answer:
    app = state.apps.get(params.get("client_id", ""))
    if app is None or params.get("redirect_uri") != app[1]:
        return Answer(400, {"error": "Invalid redirect_uri or client_id"})
    if "threads_basic" not in params.get("scope", "").split(","):
        return Answer(400, {"error": "threads_basic is required"})
    code = f"AQfakecode{next(state._ids)}"
    state.codes[code] = (params["client_id"], app[1])
    query = urlencode({"code": code, "state": params.get("state", "")})
    return Answer(302, None, {"Location": f"{app[1]}?{query}#_"})


def _code_exchange(state: State, params: dict[str, str]) -> Answer:
    issued = state.codes.pop(params.get("code", ""), None)
    app = state.apps.get(params.get("client_id", ""))
    if issued is None or app is None or params.get("client_secret") != app[0]:
        return graph_error(400, 100, "Invalid authorization code or app secret")
    if params.get("redirect_uri") != issued[1] or params.get("grant_type") != "authorization_code":
        return graph_error(400, 100, "redirect_uri does not match the authorization's")
    scopes = frozenset(s for s in _ALL)
    token = state.new_token("", scopes, long_lived=False)
    return Answer(200, {"access_token": token, "user_id": int(USER_ID)})


_ALL = (
    "threads_basic",
    "threads_content_publish",
    "threads_manage_insights",
    "threads_manage_replies",
    "threads_read_replies",
)


def _long_lived(state: State, path: str, params: dict[str, str], token: str | None) -> Answer:
    held = state.tokens.get(token or "")
    if held is None:
        return graph_error(400, 190, "Invalid OAuth access token")
    if path == "/access_token":
        secrets = {secret for secret, _ in state.apps.values()}
        if (
            params.get("grant_type") != "th_exchange_token"
            or params.get("client_secret") not in secrets
        ):
            return graph_error(400, 100, "Invalid exchange")
        if held.long_lived:
            return graph_error(400, 100, "Only a short-lived token can be exchanged")
    elif params.get("grant_type") != "th_refresh_token" or not held.long_lived:
        return graph_error(400, 100, "Invalid refresh")
    fresh = state.new_token("", held.scopes)
    del state.tokens[token or ""]
    if path == "/refresh_access_token":
        state.refreshed.append(token or "")
    return Answer(200, {"access_token": fresh, "token_type": "bearer", "expires_in": 5184000})


def _token(request: Recorded) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.startswith("Bearer "):
        return auth.removeprefix("Bearer ").strip()
    return request.params.get("access_token")


def _config(total: int) -> dict[str, int]:
    return {"quota_total": total, "quota_duration": 86400}


def _no_permission() -> Answer:
    return graph_error(400, 10, "(#10) Application does not have permission for this action")
