"""The fake LinkedIn's API host (api.linkedin.com): /rest/posts, /rest/images,
/rest/documents, the upload URLs, /v2/userinfo and socialActions (reading a member's
own posts and their analytics: linkedin_history_routes.py).

Written from LinkedIn's Posts, Images and Documents API pages (versioned "rest"
APIs) and its OpenID userinfo page. Error bodies have LinkedIn's shape:
{"status", "serviceErrorCode", "code", "message"}.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.fakes.linkedin_little import Reading, read_little

if TYPE_CHECKING:
    from tests.fakes.linkedin_server import FakeLinkedIn, Recorded

MAX_COMMENTARY = 3000
_VERSION = re.compile(r"^(\d{6})(\.\d{2})?$")
_VISIBILITY = {"PUBLIC", "CONNECTIONS", "LOGGED_IN"}


@dataclass
class Answer:
    status: int
    body: Any = None  # JSON, or None for an empty body
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeToken:
    sub: str
    scopes: frozenset[str]
    revoked: bool = False


@dataclass(frozen=True)
class FakePost:
    urn: str
    body: dict[str, Any]  # the JSON received
    reading: Reading  # the commentary as LinkedIn shows it

    @property
    def text(self) -> str:
        return self.reading.text


@dataclass
class RestState:
    lock: threading.Lock
    tokens: dict[str, FakeToken] = field(default_factory=dict)
    posts: list[FakePost] = field(default_factory=list)
    uploads: dict[str, bytes] = field(default_factory=dict)  # URN -> bytes
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (URN, owner)
    social: dict[str, dict[str, int]] = field(default_factory=dict)
    # The member's posts as the author finder lists them (linkedin_history_routes.py),
    # those created here and those a test put there, and their analytics by metric.
    listed: list[dict[str, Any]] = field(default_factory=list)
    analytics: dict[str, dict[str, int]] = field(default_factory=dict)
    # Comments made on posts (linkedin_comment_routes.FakeComment), in order.
    comments: list[Any] = field(default_factory=list)


def error(status: int, code: str, message: str, service_code: int = 100) -> Answer:
    body = {"status": status, "serviceErrorCode": service_code, "code": code, "message": message}
    return Answer(status, body)


def rest_route(fake: FakeLinkedIn, request: Recorded) -> Answer:
    path, method = request.path, request.method
    if path.startswith("/rest/"):
        refused = _protocol_refusal(fake, request)
        if refused is not None:
            return refused
    token, refused = _authenticate(fake.rest, request)
    if token is None:
        return refused or error(401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600)
    if path == "/v2/userinfo" and method == "GET":
        return _userinfo(fake, token)
    from tests.fakes.linkedin_history_routes import history_route  # it imports this

    history = history_route(fake, token, request)
    if history is not None:
        return history
    from tests.fakes.linkedin_comment_routes import comment_route  # it imports this

    comment = comment_route(fake, token, request)
    if comment is not None:
        return comment
    for prefix in ("/rest/socialActions/", "/v2/socialActions/"):
        if path.startswith(prefix) and method == "GET":
            return _social_actions(fake.rest, token, path[len(prefix) :])
    if path == "/rest/posts" and method == "POST":
        return _create_post(fake, token, request.body)
    for kind in ("image", "document"):
        if path == f"/rest/{kind}s" and method == "POST":
            return _initialize_upload(fake, token, kind, request)
        if path.startswith(f"/uploads/{kind}/") and method == "PUT":
            return _upload(fake.rest, path.rsplit("/", 1)[-1], request.body)
    return error(404, "NOT_FOUND", f"No resource for {method} {path}")


def _protocol_refusal(fake: FakeLinkedIn, request: Recorded) -> Answer | None:
    version = request.headers.get("linkedin-version", "")
    matched = _VERSION.match(version)
    if not version:
        return error(
            426,
            "VERSION_MISSING",
            "A version must be present. Please specify "
            "a version by adding the LinkedIn-Version header.",
        )
    if matched is None or matched.group(1) < fake.oldest_version:
        return error(426, "NONEXISTENT_VERSION", f"Requested version {version} is not active")
    if request.headers.get("x-restli-protocol-version") != "2.0.0":
        return error(
            400,
            "ILLEGAL_ARGUMENT",
            "The X-Restli-Protocol-Version header must be 2.0.0 for this resource",
        )
    return None


def _authenticate(rest: RestState, request: Recorded) -> tuple[FakeToken | None, Answer | None]:
    value = request.headers.get("authorization", "")
    with rest.lock:
        token = (
            rest.tokens.get(value.removeprefix("Bearer ")) if value.startswith("Bearer ") else None
        )
    if token is not None and token.revoked:
        message = "The token used in the request has been revoked by the user"
        return None, error(401, "REVOKED_ACCESS_TOKEN", message, 65601)
    return token, None


def lacks(token: FakeToken, *scopes: str) -> Answer | None:
    missing = [scope for scope in scopes if scope not in token.scopes]
    if not missing:
        return None
    return error(403, "ACCESS_DENIED", f"Not enough permissions to access: {', '.join(missing)}")


def _userinfo(fake: FakeLinkedIn, token: FakeToken) -> Answer:
    refused = lacks(token, "openid", "profile")
    if refused is not None:
        return refused
    member = fake.member
    body: dict[str, Any] = {
        "sub": token.sub,
        "name": member.name,
        "given_name": member.given_name,
        "family_name": member.family_name,
        "locale": {"country": "US", "language": "en"},
        "picture": "https://media.licdn.com/dms/image/fake.jpg",
    }
    if "email" in token.scopes:
        body.update(email=member.email, email_verified=True)
    return Answer(200, body)


def _social_actions(rest: RestState, token: FakeToken, urn: str) -> Answer:
    refused = lacks(token, "r_member_social")
    if refused is not None:
        return refused
    with rest.lock:
        counts = rest.social.get(urn)
    if counts is None:
        return error(404, "NOT_FOUND", f"Not found: {urn}")
    return Answer(
        200,
        {
            "target": urn,
            "likesSummary": {
                "totalLikes": counts["likes"],
                "aggregatedTotalLikes": counts["likes"],
                "likedByCurrentUser": False,
            },
            "commentsSummary": {
                "totalFirstLevelComments": counts["comments"],
                "aggregatedTotalComments": counts["comments"],
            },
        },
    )


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _initialize_upload(
    fake: FakeLinkedIn, token: FakeToken, kind: str, request: Recorded
) -> Answer:
    refused = lacks(token, "w_member_social")
    if refused is not None:
        return refused
    if request.query.get("action") != ["initializeUpload"]:
        return error(400, "ILLEGAL_ARGUMENT", "Unsupported action")
    body = _json_object(request.body) or {}
    owner = (body.get("initializeUploadRequest") or {}).get("owner")
    if owner != f"urn:li:person:{token.sub}":
        return error(403, "ACCESS_DENIED", f"Not enough permissions to upload for {owner}")
    upload_id = secrets.token_hex(8)
    urn = f"urn:li:{kind}:{'C4E' if kind == 'image' else 'D4D'}10AQ{upload_id}"
    with fake.rest.lock:
        fake.rest.pending[upload_id] = (urn, token.sub)
    value = {
        "uploadUrlExpiresAt": int(time.time() * 1000) + 86_400_000,
        "uploadUrl": f"{fake.base_url}/uploads/{kind}/{upload_id}?ca=vector_feedshare&sig=x",
        kind: urn,
    }
    return Answer(200, {"value": value})


def _upload(rest: RestState, upload_id: str, data: bytes) -> Answer:
    with rest.lock:
        pending = rest.pending.get(upload_id)
        if pending is None:
            return error(404, "NOT_FOUND", "Unknown upload")
        rest.uploads[pending[0]] = data
    return Answer(201)


def _create_post(fake: FakeLinkedIn, token: FakeToken, raw: bytes) -> Answer:
    refused = lacks(token, "w_member_social")
    if refused is not None:
        return refused
    body = _json_object(raw)
    if body is None:
        return error(400, "ILLEGAL_ARGUMENT", "The request body is not a JSON object")
    if body.get("author") != f"urn:li:person:{token.sub}":
        return error(403, "ACCESS_DENIED", "Not enough permissions to post as this author")
    invalid = _invalid_post(fake.rest, body)
    if invalid:
        return error(422, "UNPROCESSABLE_ENTITY", f"ERROR :: {invalid}")
    reading = read_little(str(body.get("commentary", "")))
    if reading.cut_at is not None and fake.little_mode == "reject":
        return error(400, "ILLEGAL_ARGUMENT", f"Unescaped reserved character at {reading.cut_at}")
    if len(reading.text) > MAX_COMMENTARY:
        return error(422, "UNPROCESSABLE_ENTITY", "ERROR :: /commentary :: text too long")
    with fake.rest.lock:
        urn = f"urn:li:share:{7_260_000_000_000_000_000 + len(fake.rest.posts) + 1}"
        fake.rest.posts.append(FakePost(urn, body, reading))
        fake.rest.social[urn] = {"likes": 0, "comments": 0}
        now = int(time.time() * 1000)
        fake.rest.listed.append(
            {
                **{k: body[k] for k in ("author", "commentary", "visibility") if k in body},
                "id": urn,
                "lifecycleState": "PUBLISHED",
                "createdAt": now,
                "publishedAt": now,
                "lastModifiedAt": now,
            }
        )
    return Answer(201, None, {"x-restli-id": urn})


def _invalid_post(rest: RestState, body: dict[str, Any]) -> str:
    """What LinkedIn's schema check would say about `body` ("" when it passes)."""
    if body.get("visibility") not in _VISIBILITY:
        return "/visibility :: missing or not a valid enum"
    distribution = body.get("distribution")
    if not isinstance(distribution, dict) or distribution.get("feedDistribution") not in {
        "MAIN_FEED",
        "NONE",
    }:
        return "/distribution/feedDistribution :: missing or not a valid enum"
    if body.get("lifecycleState") != "PUBLISHED":
        return "/lifecycleState :: must be PUBLISHED"
    content = body.get("content")
    if content is None:
        return ""
    with rest.lock:
        uploaded = set(rest.uploads)
    media = content.get("media") if isinstance(content, dict) else None
    images = (content.get("multiImage") or {}).get("images") if isinstance(content, dict) else None
    if isinstance(media, dict):
        urn = str(media.get("id", ""))
        if urn not in uploaded:
            return f"/content/media/id :: {urn} was never uploaded"
        if urn.startswith("urn:li:document:") and not media.get("title"):
            return "/content/media/title :: a document needs a title"
        return ""
    if isinstance(images, list) and 2 <= len(images) <= 20:
        for image in images:
            if not isinstance(image, dict) or image.get("id") not in uploaded:
                return "/content/multiImage/images :: an image was never uploaded"
        return ""
    return "/content :: neither media nor multiImage (2 to 20 images)"
