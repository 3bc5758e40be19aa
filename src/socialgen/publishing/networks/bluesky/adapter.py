"""Bluesky: posts and threads through the account's PDS, with the atproto client.

Exactly once: every record gets a key (rkey) derived from the publication's
idempotency key and the part's index (text.record_key). Before writing a
part we read that key; a record already there is a part an earlier attempt wrote
(the answer was lost, or we crashed before recording it), so it is taken as
published. A PDS answers a createRecord on an existing key with a 500, which is why
existence is checked first and again after any failed write.

Metrics come from the AppView's getPosts, through the PDS (which proxies app.bsky
calls to its AppView, as Bluesky's apps do) or from SOCIALGEN_BLUESKY_APPVIEW.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from atproto_client.models import get_model_as_dict  # type: ignore[import-untyped]

from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    MediaItem,
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
from socialgen.publishing.networks.bluesky.history import bluesky_metrics, read_history
from socialgen.publishing.networks.bluesky.media import fit_image
from socialgen.publishing.networks.bluesky.session import (
    BlueskySession,
    as_publish_error,
    error_name,
    guarded_client,
)
from socialgen.publishing.networks.bluesky.text import (
    find_facets,
    first_link,
    record_key,
    split_text,
)
from socialgen.publishing.networks.guarded_http import check_destination
from socialgen.publishing.networks.pull import Pull
from socialgen.sources.guard import check_url

NETWORK = "bluesky"
DEFAULT_SERVICE_URL = "https://bsky.social"
# A record key stays taken for good: a retry at any later time meets the first record.
IDEMPOTENCY_WINDOW_SECONDS: float | None = None
CAN_REPLY = True  # a follow-up is a reply record under the post (OutgoingPost.reply_to)
APPVIEW_ENV = "SOCIALGEN_BLUESKY_APPVIEW"
POST_COLLECTION = "app.bsky.feed.post"
IMAGES_PER_POST = 4

_FEATURE_TYPES = {
    "link": "app.bsky.richtext.facet#link",
    "mention": "app.bsky.richtext.facet#mention",
    "tag": "app.bsky.richtext.facet#tag",
}


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> BlueskyAdapter:
    return BlueskyAdapter(
        credentials,
        save_secret,
        appview=settings.bluesky_appview,
        allow_private=settings.allow_private_urls,
    )


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """Sign in with an app password once; the session's tokens go into the secret."""
    allow_private = settings.allow_private_urls
    url = check_url((service_url or DEFAULT_SERVICE_URL).strip(), allow_private=allow_private)
    url = url.rstrip("/")
    session = BlueskySession(
        url, handle, {"app_password": secret}, lambda _secret: None, allow_private=allow_private
    )
    session.open()
    identity = _identity(session)
    return Connected(service_url=url, identity=identity, secret=session.secret())


def _identity(session: BlueskySession) -> AccountIdentity:
    answer = session.call("check", lambda client: client.com.atproto.server.get_session())
    handle = str(answer.handle)
    display_name = handle
    try:
        profile = session.call(
            "profile", lambda client: client.app.bsky.actor.get_profile({"actor": answer.did})
        )
        display_name = str(profile.display_name or handle)
    except PublishError:
        # A new account the AppView has not indexed yet, or a PDS without an
        # AppView: the handle is identity enough.
        pass
    return AccountIdentity(
        handle=f"@{handle}",
        display_name=display_name,
        profile_url=f"https://bsky.app/profile/{handle}",
    )


class BlueskyAdapter:
    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        appview: str = "",
        allow_private: bool = False,
    ) -> None:
        # The AppView metrics are read from (settings.bluesky_appview); empty: the PDS.
        self._appview = appview.strip().rstrip("/")
        self._allow_private = allow_private  # settings.allow_private_urls
        self._session = BlueskySession(
            credentials.service_url or DEFAULT_SERVICE_URL,
            credentials.handle,
            credentials.secret,
            save_secret,
            allow_private=allow_private,
        )

    def check(self) -> AccountIdentity:
        return _identity(self._session)

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no other request that would meet it.
        check_destination("Bluesky", self._session.service_url, allow_private=self._allow_private)
        texts = split_text(post.text, number_parts=post.number_parts) if post.text.strip() else []
        images = [item for item in post.media if item.kind == "image"]
        groups = [images[i : i + IMAGES_PER_POST] for i in range(0, len(images), IMAGES_PER_POST)]
        count = max(len(texts), len(groups))
        if count == 0:
            raise PublishError("Bluesky: the post has no text and no images")
        texts += [""] * (count - len(texts))
        card = first_link(post.text) if not images else None
        parts: list[PreparedPart] = []
        for index, text in enumerate(texts):
            group = groups[index] if index < len(groups) else []
            details: dict[str, Any] = {
                "rkey": record_key(post.idempotency_key, index),
                "facets": [facet.as_detail() for facet in find_facets(text)],
                "images": [{"alt": item.alt_text, "mime_type": item.mime_type} for item in group],
            }
            if card and card in text:
                details["link_card"] = card
                card = None
            if index == 0 and any(item.kind != "image" for item in post.media):
                details["note"] = "documents are not supported on Bluesky; slide images are"
            parts.append(PreparedPart(text=text, details=details))
        return PreparedPost(network=NETWORK, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        prepared = self.prepare(post)
        images = [item for item in post.media if item.kind == "image"]
        did = self._did()
        handles: dict[str, str | None] = {}
        # A follow-up answers the published post (base.py): it is root and parent both.
        root = parent = self._reply_target(post.reply_to) if post.reply_to else None
        uris: list[str] = []
        for index, part in enumerate(prepared.parts):
            rkey = str(part.details["rkey"])
            ref = self._existing(did, rkey)
            if ref is None:
                group = images[index * IMAGES_PER_POST : (index + 1) * IMAGES_PER_POST]
                record = self._record(part, group, handles, root, parent)
                ref = self._create(did, rkey, record)
            root = root or ref
            parent = ref
            uris.append(ref["uri"])
        handle = self._session.handle
        root_rkey = str(prepared.parts[0].details["rkey"])
        return Published(
            remote_id=uris[0],
            url=f"https://bsky.app/profile/{handle}/post/{root_rkey}",
            part_ids=tuple(uris),
        )

    def metrics(self, published: Published) -> Metrics:
        uri = published.remote_id
        if self._appview:
            # getPosts is public on an AppView: no session needed.
            client = guarded_client(self._appview, allow_private=self._allow_private)
            try:
                answer = client.app.bsky.feed.get_posts({"uris": [uri]})
            except Exception as error:
                raise as_publish_error(error, "metrics") from None
        else:
            answer = self._session.call(
                "metrics", lambda client: client.app.bsky.feed.get_posts({"uris": [uri]})
            )
        if not answer.posts:
            return Metrics(note="the AppView does not show this post (yet)")
        view = answer.posts[0]
        # Our own thread's second part is a reply to the root, not a comment.
        own_replies = 1 if len(published.part_ids) > 1 else 0
        return bluesky_metrics(view, own_replies)

    def history(self, since: datetime | None, pull: Pull) -> Iterator[PastPost]:
        """The account's own posts with their counts (history.py)."""
        return read_history(self._session, since, pull)

    # --- inside -----------------------------------------------------------------------

    def _reply_target(self, uri: str) -> dict[str, str]:
        """The post a follow-up answers as a strong ref (its uri and cid, read back)."""
        repo, _, path = uri.removeprefix("at://").partition("/")  # DID/collection/rkey
        rkey = path.rpartition("/")[2]
        ref = self._existing(repo, rkey) if repo and rkey else None
        if ref is None:
            raise PublishError(f"Bluesky no longer has the post to reply under ({uri})")
        return ref

    def _did(self) -> str:
        # A no-op call signs in when the secret holds no session yet.
        self._session.call("sign-in", lambda client: None)
        return self._session.did

    def _existing(self, did: str, rkey: str) -> dict[str, str] | None:
        def read(client: Any) -> dict[str, str] | None:
            try:
                answer = client.com.atproto.repo.get_record(
                    {"repo": did, "collection": POST_COLLECTION, "rkey": rkey}
                )
            except Exception as error:
                if error_name(error) == "RecordNotFound":
                    return None
                raise
            return {"uri": str(answer.uri), "cid": str(answer.cid)}

        return self._session.call("reading the post back", read)

    def _create(self, did: str, rkey: str, record: dict[str, Any]) -> dict[str, str]:
        data = {"repo": did, "collection": POST_COLLECTION, "rkey": rkey, "record": record}
        try:
            answer = self._session.call(
                "posting", lambda client: client.com.atproto.repo.create_record(data)
            )
        except PublishError as error:
            if error.reconnect:
                raise
            # The write may have landed before the failure (or an earlier attempt
            # wrote it): a record under our key is our post.
            ref = self._existing(did, rkey)
            if ref is None:
                raise
            return ref
        return {"uri": str(answer.uri), "cid": str(answer.cid)}

    def _record(
        self,
        part: PreparedPart,
        images: list[MediaItem],
        handles: dict[str, str | None],
        root: dict[str, str] | None,
        parent: dict[str, str] | None,
    ) -> dict[str, Any]:
        record: dict[str, Any] = {
            "$type": POST_COLLECTION,
            "text": part.text,
            "createdAt": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
        }
        facets = self._facets(part.details["facets"], handles)
        if facets:
            record["facets"] = facets
        if root and parent:
            record["reply"] = {"root": root, "parent": parent}
        if images:
            record["embed"] = {
                "$type": "app.bsky.embed.images",
                "images": [self._image(item) for item in images],
            }
        elif "link_card" in part.details:
            url = str(part.details["link_card"])
            # The URL itself is the card's title: fetching an arbitrary page for its
            # title would be an outbound request on the user's word alone.
            record["embed"] = {
                "$type": "app.bsky.embed.external",
                "external": {"uri": url, "title": url, "description": ""},
            }
        return record

    def _facets(
        self, found: list[dict[str, Any]], handles: dict[str, str | None]
    ) -> list[dict[str, Any]]:
        facets = []
        for facet in found:
            kind = facet["kind"]
            feature: dict[str, Any] = {"$type": _FEATURE_TYPES[kind]}
            if kind == "link":
                feature["uri"] = facet["value"]
            elif kind == "tag":
                feature["tag"] = facet["value"]
            else:
                did = self._resolve(str(facet["value"]), handles)
                if did is None:
                    continue  # an unknown handle stays plain text, as in Bluesky's app
                feature["did"] = did
            facets.append(
                {
                    "$type": "app.bsky.richtext.facet",
                    "index": {"byteStart": facet["byteStart"], "byteEnd": facet["byteEnd"]},
                    "features": [feature],
                }
            )
        return facets

    def _resolve(self, handle: str, handles: dict[str, str | None]) -> str | None:
        if handle not in handles:

            def resolve(client: Any) -> str | None:
                try:
                    return str(client.com.atproto.identity.resolve_handle({"handle": handle}).did)
                except Exception as error:
                    if error_name(error) in {"InvalidRequest", "HandleNotFound", "InvalidHandle"}:
                        return None
                    raise

            handles[handle] = self._session.call("resolving a handle", resolve)
        return handles[handle]

    def _image(self, item: MediaItem) -> dict[str, Any]:
        image = fit_image(item)
        answer = self._session.call(
            "uploading an image",
            lambda client: client.com.atproto.repo.upload_blob(
                image.data, headers={"Content-Type": image.mime_type}
            ),
        )
        entry: dict[str, Any] = {
            "alt": item.alt_text,
            "image": get_model_as_dict(answer.blob),
        }
        if image.width and image.height:
            entry["aspectRatio"] = {"width": image.width, "height": image.height}
        return entry
