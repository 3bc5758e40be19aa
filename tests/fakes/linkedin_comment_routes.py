"""The fake LinkedIn's Comments API: `POST /rest/socialActions/{target}/comments`, and
reading a post's comments back (`GET` of the same path).

Written from LinkedIn's Comments API page (Community Management, "Create a Comment"):
the target is the post's URN (URL-encoded in the path), the body names the member
commenting (`actor`), the post (`object`) and `message.text`; permission
w_member_social. Refused as LinkedIn refuses: a body that is not JSON or lacks a field
(400), an actor other than the token's member (403), a post that does not exist
(404), a text over 1,250 characters (422). A comment made answers 201 with the comment
(`id`, `$URN` = urn:li:comment:(POST_URN,ID), actor, object, message, created) and its
id in `x-restli-id`. Its count goes into the post's socialActions summary.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fakes.linkedin_rest import Answer, FakeToken, error, lacks

if TYPE_CHECKING:
    from tests.fakes.linkedin_server import FakeLinkedIn, Recorded

PREFIX = "/rest/socialActions/"
SUFFIX = "/comments"
MAX_COMMENT = 1250


@dataclass(frozen=True)
class FakeComment:
    urn: str
    target: str  # the post's URN
    actor: str
    text: str


def comment_route(fake: FakeLinkedIn, token: FakeToken, request: Recorded) -> Answer | None:
    """The answer for a comments call, or None when the request is not one."""
    path = request.path
    if not (path.startswith(PREFIX) and path.endswith(SUFFIX)):
        return None
    target = path[len(PREFIX) : -len(SUFFIX)]
    if request.method == "GET":
        return _list(fake, target)
    if request.method != "POST":
        return error(405, "METHOD_NOT_ALLOWED", f"{request.method} is not allowed here")
    refused = lacks(token, "w_member_social")
    if refused is not None:
        return refused
    try:
        body = json.loads(request.body or b"null")
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return error(400, "ILLEGAL_ARGUMENT", "The request body is not a JSON object")
    message = body.get("message")
    text = message.get("text") if isinstance(message, dict) else None
    if not isinstance(body.get("actor"), str) or not isinstance(text, str):
        return error(400, "ILLEGAL_ARGUMENT", "actor and message.text are required")
    if body["actor"] != f"urn:li:person:{token.sub}":
        return error(403, "ACCESS_DENIED", "Not enough permissions to comment as this actor")
    if body.get("object") not in (None, target):
        return error(400, "ILLEGAL_ARGUMENT", f"object does not match the path: {target}")
    if not _exists(fake, target):
        return error(404, "NOT_FOUND", f"Not found: {target}")
    if len(text) > MAX_COMMENT:
        return error(422, "UNPROCESSABLE_ENTITY", "ERROR :: /message/text :: text too long")
    with fake.rest.lock:
        number = str(7_300_000_000_000_000_000 + len(fake.rest.comments) + 1)
        urn = f"urn:li:comment:({target},{number})"
        fake.rest.comments.append(FakeComment(urn, target, body["actor"], text))
        counts = fake.rest.social.setdefault(target, {"likes": 0, "comments": 0})
        counts["comments"] += 1
    now = int(time.time() * 1000)
    answer = {
        "id": number,
        "$URN": urn,
        "actor": body["actor"],
        "object": target,
        "message": {"text": text},
        "created": {"actor": body["actor"], "time": now},
        "lastModified": {"actor": body["actor"], "time": now},
    }
    return Answer(201, answer, {"x-restli-id": number})


def _exists(fake: FakeLinkedIn, target: str) -> bool:
    with fake.rest.lock:
        return any(post.urn == target for post in fake.rest.posts) or any(
            item.get("id") == target for item in fake.rest.listed
        )


def _list(fake: FakeLinkedIn, target: str) -> Answer:
    with fake.rest.lock:
        found = [c for c in fake.rest.comments if c.target == target]
    elements: list[dict[str, Any]] = [
        {"$URN": c.urn, "actor": c.actor, "object": c.target, "message": {"text": c.text}}
        for c in found
    ]
    return Answer(200, {"elements": elements, "paging": {"count": len(elements), "start": 0}})
