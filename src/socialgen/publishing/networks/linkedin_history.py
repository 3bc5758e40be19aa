"""A LinkedIn member's past posts with their counts: not readable with the tokens
socialgen gets, so a clear refusal saying what LinkedIn would have to grant.

Listing a member's own posts (`GET /rest/posts?q=author`) needs r_member_social and
their counts (`/rest/memberCreatorPostAnalytics`) need r_member_postAnalytics. LinkedIn
grants both only to apps it has approved for its Community Management API; the
"Share on LinkedIn" and "Sign In with LinkedIn" products socialgen's sign-in uses
(scopes openid profile email w_member_social, linkedin_oauth.SCOPES) include neither,
and LinkedIn's token answers do not say which scopes a pasted token holds. So no call
is made: the refusal comes at once, before anything is stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from socialgen.errors import Forbidden
from socialgen.publishing.networks.base import PastPost

ANALYTICS_SCOPE = "r_member_postAnalytics"
NO_HISTORY = (
    "LinkedIn does not let socialgen read your past posts and their counts: that needs "
    f"the {ANALYTICS_SCOPE} permission (and r_member_social to list the posts), which "
    "LinkedIn grants only to apps approved for its Community Management API. Ask "
    "LinkedIn for Community Management API access for your app "
    "(linkedin.com/developers > your app > Products), or bring your LinkedIn posts in "
    "from a file with `socialgen posts import FILE`"
)


def read_history(since: datetime | None) -> Iterator[PastPost]:
    raise Forbidden(NO_HISTORY)
