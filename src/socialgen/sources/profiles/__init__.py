"""Import the posts of a social profile (content styles' get-posts-from-social-profile).

One entry point, `import_profile_posts`, in front of adapters chosen by URL (see
`registry`): LinkedIn (`linkedin`, needs a configured service), Bluesky
(`bluesky`), Mastodon (`mastodon`), and any other page (`web`): an RSS/Atom feed
(`feeds`), a page linking one, or a page with h-entry / <article> markup (`html`).
Every request goes through the SSRF guard, capped at 2 MB and 10 s.

Environment: SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT (see `linkedin`),
SOCIALGEN_BLUESKY_APPVIEW (see `bluesky`), SOCIALGEN_ALLOW_PRIVATE_URLS (the guard).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from socialgen.kit.clock import utcnow
from socialgen.kit.control_chars import without_controls
from socialgen.kit.errors import BadRequest
from socialgen.sources.articles import clean_text
from socialgen.sources.guard import MAX_URL_LENGTH
from socialgen.sources.profiles.base import NoPostsFound, RawPost
from socialgen.sources.profiles.dates import calendar_date
from socialgen.sources.profiles.linkedin import LinkedInNeedsEndpoint
from socialgen.sources.profiles.registry import read_posts

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

__all__ = [
    "MAX_LIMIT",
    "LinkedInNeedsEndpoint",
    "NoPostsFound",
    "ProfilePost",
    "import_profile_posts",
]

MAX_LIMIT = 100
MISSING_URL = "The profile URL is required as a query parameter (profileUrl)"
EXAMPLE = "https://mastodon.social/@name"


@dataclass(frozen=True)
class ProfilePost:
    content: str  # plain text, paragraphs separated by a blank line
    date: str  # calendar date, YYYY-MM-DD
    url: str | None = None  # the post's own page, when the source gives one


async def import_profile_posts(
    profile_url: str | None, settings: AppSettings, *, limit: int = 20
) -> list[ProfilePost]:
    """The latest posts at `profile_url`, newest first, at most `limit`; `settings`:
    the caller's Runtime's (the LinkedIn endpoint, the Bluesky AppView).

    Raises `BadRequest` (400) for a missing, malformed or refused URL and for a
    source that cannot be fetched or read; `NoPostsFound` (422) when the source was
    read but holds no posts; `LinkedInNeedsEndpoint` (422) for LinkedIn without a
    configured profile service.
    """
    url = _validated(profile_url)
    if not 1 <= limit <= MAX_LIMIT:
        raise BadRequest(f"The number of posts must be between 1 and {MAX_LIMIT}")
    posts = _finish(await read_posts(url, limit, settings), limit)
    if not posts:
        raise NoPostsFound(f"No posts found at {url}")
    return posts


def _validated(profile_url: str | None) -> str:
    """The URL, stripped, if it is an absolute http(s) link; the guard checks the
    address later, when it is fetched."""
    url = (profile_url or "").strip()
    if not url:
        raise BadRequest(MISSING_URL)
    if len(url) > MAX_URL_LENGTH:
        raise BadRequest(f"The profile URL is longer than {MAX_URL_LENGTH} characters")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if not scheme:
        raise BadRequest(
            f"The profile URL must be a full link starting with https:// (e.g. {EXAMPLE}), "
            f"got {url!r}"
        )
    if scheme not in ("http", "https"):
        raise BadRequest(
            f"The profile URL must start with http:// or https://, not {scheme}:// (got {url!r})"
        )
    try:
        parts = urlsplit(url)
        netloc, _ = parts.netloc, parts.port  # .port raises for one out of range or not a number
        host = httpx.URL(url).host  # the parser fetch uses: what it accepts is fetched
    except (ValueError, httpx.InvalidURL) as exc:
        raise BadRequest(f"The profile URL is not a valid link ({exc}): {url!r}") from None
    if not host:
        raise BadRequest(f"The profile URL has no host name: {url!r}")
    if any(character.isspace() for character in netloc):
        raise BadRequest(f"The profile URL is not a valid link (space in the host name): {url!r}")
    return url


def _finish(found: list[RawPost], limit: int) -> list[ProfilePost]:
    """Clean, drop empty, date, sort newest first, cut to `limit`.

    Control characters are removed (kit/control_chars.py): the text is another
    service's, and one such character must not cost the post.
    Undated posts: dropped when others have dates (they cannot be placed in the
    order, and a feed's dated entries are its posts); when none has a date (an
    <article> page without <time>), each gets today's date, in source order, since
    the date field is a required calendar date.
    """
    posts = [(without_controls(clean_text(post.text)), post) for post in found]
    posts = [(text, post) for text, post in posts if text]
    dated = [(post.published, text, post) for text, post in posts if post.published is not None]
    if not dated:
        today = utcnow().date().isoformat()
        return [ProfilePost(text, today, post.url) for text, post in posts[:limit]]
    # Stable sort on the instant: same-moment posts keep the source's order.
    dated.sort(key=lambda entry: entry[0], reverse=True)
    return [
        ProfilePost(text, calendar_date(published), post.url)
        for published, text, post in dated[:limit]
    ]
