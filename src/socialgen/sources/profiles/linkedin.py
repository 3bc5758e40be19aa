"""LinkedIn profiles: LinkedIn shows posts only to signed-in members, so there is
nothing to fetch anonymously. An operator can plug in a profile-scraping service:

SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT is a URL template; `{url}` is replaced by the
profile URL, percent-encoded, and `{limit}` (optional) by the number of posts
wanted, e.g. `https://scraper.example/linkedin/posts?profile={url}&count={limit}`.
The service is fetched through the same SSRF guard as everything else (a service
on a private address needs SOCIALGEN_ALLOW_PRIVATE_URLS=1) and must answer JSON:

    [ {"text": "...", "date": "2024-03-18"}, ... ]      or      {"posts": [ ... ]}

Each post takes its text from `text`, `content` or `commentary`, its date from
`date`, `postedAt` or `publishedAt` (ISO 8601, RFC 822, or epoch seconds or
milliseconds), and optionally its link from `url` or `postUrl`. A bare string is a
post without a date.

Without the variable, a LinkedIn URL is refused with a message saying so (422),
never answered with an empty list.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, quote, urlsplit

from socialgen.kit.errors import BadRequest, SocialgenError
from socialgen.sources.fetch import SourceError
from socialgen.sources.profiles.base import Adapter, RawPost, get_json, host_of, text_field
from socialgen.sources.profiles.dates import parse_date

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

ENDPOINT_ENV = "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT"
_PROFILE_PATH = re.compile(r"^/(?:in|company)/[^/]+/?")


class LinkedInNeedsEndpoint(BadRequest):
    """A LinkedIn profile cannot be read without a configured scraping service. The
    request is well-formed, this server just cannot serve it: 422, not 400 or 500."""

    status_code = 422


def claims(parts: SplitResult) -> bool:
    host = host_of(parts)
    return host == "linkedin.com" or host.endswith(".linkedin.com")  # also de., uk., ...


async def read(url: str, limit: int, settings: AppSettings) -> list[RawPost] | None:
    if not _PROFILE_PATH.match(urlsplit(url).path):
        raise BadRequest(
            f"{url} is not a LinkedIn profile: profile links look like "
            "https://www.linkedin.com/in/<name> or https://www.linkedin.com/company/<name>"
        )
    template = (settings.linkedin_profile_endpoint or "").strip()
    if not template:
        raise LinkedInNeedsEndpoint(
            "LinkedIn does not show posts to anonymous visitors: set "
            f"{ENDPOINT_ENV} to a profile-scraping service to import from LinkedIn"
        )
    if "{url}" not in template:
        # The operator's mistake, not the user's: a server-side error.
        raise SocialgenError(
            f"{ENDPOINT_ENV} must contain {{url}} where the profile URL goes", status_code=500
        )
    # str.replace, not str.format: the template may hold other braces of its own.
    endpoint = template.replace("{url}", quote(url, safe="")).replace("{limit}", str(limit))
    try:
        answer = await get_json(endpoint, allow_private=settings.allow_private_urls)
    except BadRequest as exc:  # a fetch failure or the guard's refusal
        reason = _without_endpoint(exc.message, endpoint)
        raise SourceError(f"The LinkedIn profile service failed for {url}: {reason}") from None
    items = answer.get("posts") if isinstance(answer, dict) else answer
    if not isinstance(items, list):
        raise SourceError(
            f"The LinkedIn profile service answered for {url} without a list of posts"
        )
    return [post for post in map(_post, items) if post is not None]


def _without_endpoint(message: str, endpoint: str) -> str:
    """The failure without the endpoint URL: the template may carry an API key, and
    this message goes back to the user."""
    for prefix in (f"Could not fetch {endpoint}: ", f"Could not read {endpoint}: "):
        message = message.removeprefix(prefix)
    return message.replace(endpoint, "the service")


def _post(item: object) -> RawPost | None:
    if isinstance(item, str):
        return RawPost(text=item, published=None)
    if not isinstance(item, dict):
        return None
    published = None
    for key in ("date", "postedAt", "publishedAt"):
        published = parse_date(item.get(key))
        if published is not None:
            break
    return RawPost(
        text=text_field(item, "text", "content", "commentary") or "",
        published=published,
        url=text_field(item, "url", "postUrl"),
    )


ADAPTER = Adapter(name="linkedin", claims=claims, read=read)
