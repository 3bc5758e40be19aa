"""The fake LinkedIn's read side of a member's own posts: the Posts API's author
finder and the Member Post Statistics API, from LinkedIn's documentation of them.

- GET /rest/posts?q=author&author=URN&count=N&start=S&sortBy=CREATED|LAST_MODIFIED
  needs r_member_social, and the author must be the token's member (403 otherwise);
  at most 100 a page; `paging.links` names the next page while there is one.
- GET /rest/memberCreatorPostAnalytics?q=entity&entity=(share:URN)|(ugc:URN)
  &queryType=REACTION|COMMENT|RESHARE|IMPRESSION|MEMBERS_REACHED&aggregation=TOTAL
  needs r_member_postAnalytics and the member's own post; answers one data point,
  or none for a post LinkedIn has no analytics for.

Posts are listed as LinkedIn gives them: `id`, `author`, `commentary` (little text),
`createdAt`/`publishedAt`/`lastModifiedAt` (epoch ms), `lifecycleState`,
`visibility`, and `reshareContext` for a repost.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tests.fakes.linkedin_rest import Answer, FakeToken, error, lacks

if TYPE_CHECKING:
    from tests.fakes.linkedin_server import FakeLinkedIn, Recorded

MAX_PAGE = 100
METRICS = ("IMPRESSION", "MEMBERS_REACHED", "RESHARE", "REACTION", "COMMENT")
_ENTITY = re.compile(r"^\((share|ugc):(urn:li:(share|ugcPost):\d+)\)$")
_METRIC_TYPE = "com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1"


def history_route(fake: FakeLinkedIn, token: FakeToken, request: Recorded) -> Answer | None:
    """The answer when the request is one of these calls (None otherwise)."""
    if request.method != "GET":
        return None
    if request.path == "/rest/posts":
        return _find_by_author(fake, token, _single(request.query))
    if request.path == "/rest/memberCreatorPostAnalytics":
        return _analytics(fake, token, _single(request.query))
    return None


def _single(query: dict[str, list[str]]) -> dict[str, str]:
    return {name: values[0] for name, values in query.items() if values}


def _find_by_author(fake: FakeLinkedIn, token: FakeToken, query: dict[str, str]) -> Answer:
    refused = lacks(token, "r_member_social")
    if refused is not None:
        return refused
    if query.get("q") != "author":
        return error(400, "ILLEGAL_ARGUMENT", "Unsupported finder")
    author = query.get("author", "")
    if author != f"urn:li:person:{token.sub}":
        return error(403, "ACCESS_DENIED", f"Not enough permissions to read posts of {author}")
    try:
        start, count = int(query.get("start", "0")), int(query.get("count", "10"))
    except ValueError:
        return error(400, "ILLEGAL_ARGUMENT", "start and count must be integers")
    if start < 0 or not 1 <= count <= MAX_PAGE:
        return error(400, "ILLEGAL_ARGUMENT", f"count must be between 1 and {MAX_PAGE}")
    order = "createdAt" if query.get("sortBy") == "CREATED" else "lastModifiedAt"
    with fake.rest.lock:
        mine = [dict(p) for p in fake.rest.listed if p["author"] == author]
    # A test's post without a time (a bad answer to give) sorts last.
    mine.sort(key=lambda p: p[order] if isinstance(p.get(order), int) else 0, reverse=True)
    page = mine[start : start + count]
    links = []
    if start + count < len(mine):
        href = (
            f"/rest/posts?q=author&author={quote(author, safe='')}"
            f"&count={count}&start={start + count}&sortBy={query.get('sortBy', '')}"
        )
        links.append({"rel": "next", "type": "application/json", "href": href})
    paging = {"start": start, "count": count, "links": links}
    return Answer(200, {"elements": page, "paging": paging})


def _analytics(fake: FakeLinkedIn, token: FakeToken, query: dict[str, str]) -> Answer:
    refused = lacks(token, "r_member_postAnalytics")
    if refused is not None:
        return refused
    matched = _ENTITY.match(query.get("entity", ""))
    metric = query.get("queryType", "")
    if query.get("q") != "entity" or matched is None or metric not in METRICS:
        return error(400, "ILLEGAL_ARGUMENT", "Invalid entity or queryType")
    key, urn, kind = matched.groups()
    if (key == "ugc") != (kind == "ugcPost"):
        return error(400, "ILLEGAL_ARGUMENT", f"Entity key {key} does not fit {urn}")
    if query.get("aggregation", "TOTAL") != "TOTAL":
        return error(400, "ILLEGAL_ARGUMENT", "Only TOTAL is served by the fake")
    with fake.rest.lock:
        post = next((p for p in fake.rest.listed if p["id"] == urn), None)
        counts = dict(fake.rest.analytics.get(urn, {}))
    if post is not None and post["author"] != f"urn:li:person:{token.sub}":
        return error(403, "ACCESS_DENIED", f"Not enough permissions to access: {urn}")
    if post is None or metric not in counts:
        return Answer(200, {"elements": [], "paging": {"start": 0, "count": 10, "links": []}})
    point: dict[str, Any] = {
        "count": counts[metric],
        "metricType": {_METRIC_TYPE: metric},
        "targetEntity": {key: urn},
    }
    return Answer(200, {"elements": [point], "paging": {"start": 0, "count": 10, "links": []}})
