"""A LinkedIn member's past posts with their counts: not readable with the tokens
socialgen gets, so a clear refusal saying what LinkedIn would have to grant.

Listing a member's own posts (`GET /rest/posts?q=author`) needs r_member_social, which
LinkedIn's Posts API page calls a private permission, and their counts
(`/rest/memberCreatorPostAnalytics`, since July 2025) need r_member_postAnalytics,
granted only to apps LinkedIn approved for its Community Management API; the
"Share on LinkedIn" and "Sign In with LinkedIn" products socialgen's sign-in uses
(scopes openid profile email w_member_social, linkedin_oauth.SCOPES) include neither,
and a token pasted with --token-stdin comes without its scopes. So no call is made:
the refusal comes at once, before anything is stored. Should LinkedIn open these to
an app, the real path is these two calls (the fake in tests/fakes would learn them).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from socialgen.errors import Forbidden
from socialgen.publishing.networks.base import PastPost

ANALYTICS_SCOPE = "r_member_postAnalytics"
NO_HISTORY = (
    "LinkedIn does not let socialgen read your past posts and their counts: the counts "
    f"need the {ANALYTICS_SCOPE} permission, which LinkedIn grants only to apps approved "
    "for its Community Management API, and listing the posts needs r_member_social, a "
    "permission LinkedIn keeps private. Ask LinkedIn for Community Management API access "
    "for your app (linkedin.com/developers > your app > Products), or bring your "
    "LinkedIn posts in from a file with `socialgen posts import FILE`"
)


def read_history(since: datetime | None) -> Iterator[PastPost]:
    raise Forbidden(NO_HISTORY)
