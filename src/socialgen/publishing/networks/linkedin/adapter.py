"""LinkedIn: a member's posts through the versioned Posts API (`/rest/posts`).

The contract is networks/base.py. What is LinkedIn's own:
- the text is "little" text, escaped (text.py), one post of at most 3000
  characters: LinkedIn has no threads;
- a carousel is a document post (its PDF), slides otherwise images (media.py);
- there is no idempotency key, so when the post request went out and no answer came
  back the outcome is unknown and never retried blindly (client.py);
- identity comes from OpenID's /v2/userinfo: the member is `urn:li:person:{sub}`,
  which is also the posts' author;
- likes and comments come from socialActions, which needs r_member_social, a
  permission LinkedIn grants to few apps: without it metrics carry a note instead;
- past posts with their counts (`accounts history`) need r_member_social and
  r_member_postAnalytics, checked against the scopes LinkedIn granted
  (history.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from urllib.parse import quote

from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PastPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.networks.guarded_http import check_destination
from socialgen.publishing.networks.linkedin.client import (
    LinkedInClient,
    api_version,
    json_body,
    oauth_url,
)
from socialgen.publishing.networks.linkedin.comments import post_comment, prepared_comment
from socialgen.publishing.networks.linkedin.history import read_history, refusal
from socialgen.publishing.networks.linkedin.media import describe, post_content
from socialgen.publishing.networks.linkedin.oauth import authorize_tokens
from socialgen.publishing.networks.linkedin.text import commentary
from socialgen.publishing.networks.pull import Pull

DEFAULT_SERVICE_URL = "https://api.linkedin.com"
CAN_REPLY = True  # a follow-up is a comment on the post (comments.py)
PERSON = "urn:li:person:"
NO_READ_SCOPE = (
    "LinkedIn did not let this token read likes and comments: that needs the "
    "r_member_social permission, which LinkedIn grants to approved apps only"
)


def post_url(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}/"


class LinkedInAdapter:
    network = "linkedin"

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> None:
        self._credentials = credentials
        self._settings = settings
        self._secret = dict(credentials.secret)
        self._save_secret = save_secret

    def _client(self) -> LinkedInClient:
        url = self._credentials.service_url
        return LinkedInClient(url, self._secret, self._saved, self._settings)

    def _saved(self, secret: dict[str, str]) -> None:
        # The refreshed token serves this adapter's next calls too, not only the row.
        self._secret = dict(secret)
        self._save_secret(dict(secret))

    def check(self) -> AccountIdentity:
        client = self._client()
        try:
            return identity(client)
        finally:
            client.close()

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no other request that would meet it.
        check_destination(
            "LinkedIn",
            self._credentials.service_url,
            allow_private=self._settings.allow_private_urls,
        )
        if post.reply_to:  # a follow-up: a comment on the post (comments.py)
            return prepared_comment(post, api_version(self._settings))
        details = {"apiVersion": api_version(self._settings), "media": describe(post.media)}
        part = PreparedPart(text=commentary(post.text), details=details)
        return PreparedPost(network=self.network, parts=(part,))

    def publish(self, post: OutgoingPost) -> Published:
        if post.reply_to:  # a follow-up: a comment on the post (comments.py)
            client = self._client()
            try:
                return post_comment(client, self._author(client), post)
            finally:
                client.close()
        text = commentary(post.text)  # a refusal before anything is uploaded
        client = self._client()
        try:
            author = self._author(client)
            body: dict[str, object] = {
                "author": author,
                "commentary": text,
                "visibility": "PUBLIC",
                "distribution": {
                    "feedDistribution": "MAIN_FEED",
                    "targetEntities": [],
                    "thirdPartyDistributionChannels": [],
                },
                "lifecycleState": "PUBLISHED",
                "isReshareDisabledByAuthor": False,
            }
            content = post_content(client, author, post.media)
            if content is not None:
                body["content"] = content
            response = client.request(
                "POST", "/rest/posts", what="creating the post", json=body, creates=True
            )
        finally:
            client.close()
        urn = response.headers.get("x-restli-id", "").strip()
        if not urn:
            raise PublishError(
                "LinkedIn accepted the post but gave no id for it: check your LinkedIn "
                "feed before retrying with `socialgen posts publish POST_ID --retry`",
                outcome_unknown=True,
            )
        return Published(remote_id=urn, url=post_url(urn), part_ids=(urn,))

    def metrics(self, published: Published) -> Metrics:
        client = self._client()
        try:
            response = client.request(
                "GET",
                f"/rest/socialActions/{quote(published.remote_id, safe='')}",
                what="reading likes and comments",
                accept=(403, 404),
            )
        finally:
            client.close()
        if response.status_code == 403:
            return Metrics(note=NO_READ_SCOPE)
        if response.status_code == 404:
            return Metrics(note="LinkedIn no longer has this post (deleted?)")
        body = json_body(response)
        likes = (body.get("likesSummary") or {}).get("totalLikes", 0)
        comments = (body.get("commentsSummary") or {}).get("aggregatedTotalComments", 0)
        return Metrics(likes=int(likes or 0), comments=int(comments or 0))

    def history(self, since: datetime | None, pull: Pull) -> Iterator[PastPost]:
        """The member's posts with their counts, when the token holds the scopes it
        takes; refused at once otherwise (history.py)."""
        refused = refusal(self._secret)
        if refused is not None:
            raise refused
        return self._read_history(since, pull)

    def _read_history(self, since: datetime | None, pull: Pull) -> Iterator[PastPost]:
        client = self._client()
        try:
            yield from read_history(client, self._author(client), since, pull)
        finally:
            client.close()

    def _author(self, client: LinkedInClient) -> str:
        handle = self._credentials.handle.strip()
        return handle if handle.startswith(PERSON) else identity(client).handle


def identity(client: LinkedInClient) -> AccountIdentity:
    """Who the token belongs to (OpenID userinfo; scopes openid and profile)."""
    response = client.request("GET", "/v2/userinfo", what="reading who you are", accept=(403,))
    if response.status_code == 403:
        raise PublishError(
            "LinkedIn did not say who this token belongs to: the token needs the "
            "openid and profile scopes (the app's 'Sign In with LinkedIn using OpenID "
            "Connect' product)"
        )
    body = json_body(response)
    sub = str(body.get("sub") or "")
    if not sub:
        raise PublishError("LinkedIn's userinfo answer names no member")
    name = str(body.get("name") or "").strip()
    if not name:
        name = " ".join(str(body.get(k) or "") for k in ("given_name", "family_name")).strip()
    return AccountIdentity(
        handle=PERSON + sub, display_name=name or sub, email=str(body.get("email") or "")
    )


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> LinkedInAdapter:
    return LinkedInAdapter(credentials, save_secret, settings)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """An access token given by hand (--token-stdin); `handle` is not needed: the
    token says whose it is."""
    return _connected(service_url, {"access_token": secret.strip()}, settings)


def authorize(
    service_url: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """Sign in through the browser with the user's LinkedIn app (oauth.py).
    options: client_id, client_secret, port (the registered redirect's, default 8765)."""
    secret = authorize_tokens(
        options,
        open_browser=open_browser,
        announce=announce,
        timeout=settings.linkedin_timeout,
        allow_private=settings.allow_private_urls,
        oauth_host=oauth_url(settings),
    )
    return _connected(service_url, secret, settings)


def _connected(service_url: str, secret: dict[str, str], settings: NetworkSettings) -> Connected:
    url = service_url.rstrip("/")
    client = LinkedInClient(url, secret, None, settings)
    try:
        who = identity(client)
    finally:
        client.close()
    return Connected(service_url=url, identity=who, secret=secret)
