"""Threads' images through the real outbox: with the files in a real S3-protocol bucket
(moto's server, tests/s3_support.py) a carousel post goes live as a CAROUSEL and a
one-slide post as an IMAGE, the fake Threads fetching each slide from its presigned
link as Meta does; without a bucket the post goes as text and the dry run says why the
images are left out; a link the fake cannot fetch (the bucket down) fails the
publication before anything is live. The adapter sends links, it never fetches them."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image

from socialgen.app.runtime import Runtime
from socialgen.files.backend import StorageUnavailable
from socialgen.files.backends import files_of
from socialgen.files.store import FileStore
from socialgen.kit.ids import new_id
from socialgen.publishing.networks.base import MediaItem, OutgoingPost
from socialgen.publishing.networks.threads import adapter as threads
from socialgen.publishing.networks.threads.media import images_of
from socialgen.publishing.outbox.dryrun import dry_run
from socialgen.publishing.outbox.media import post_media
from socialgen.publishing.outbox.runner import publish_now
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import Carousel, CarouselSlide, Post
from tests.conftest import BACKEND, Store
from tests.fakes.threads_routes import USER_ID
from tests.fakes.threads_server import FakeThreads
from tests.s3_support import Bucket, FaultyS3
from tests.test_publish_threads_outbox import add_account

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)

CAPTION = "Three frames from the harbour at dawn."
PDF = b"%PDF-1.4 harbour"


@pytest.fixture
def fake(networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeThreads]:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")  # the servers live on 127.0.0.1
    networks["threads"] = threads
    with FakeThreads() as server:
        server.state.container_polls = 0
        yield server


def picture(colour: str, kind: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, kind)
    return out.getvalue()


def carousel_post(store: Store, slides: list[bytes], extension: str = "png") -> str:
    """A post carrying a carousel: its PDF and slides in the Runtime's file store."""
    post = store.post(CAPTION)
    files, carousel_id = store.files(), new_id()
    folder = f"carousels/{carousel_id}"
    files.save(store.workspace_id, f"{folder}/carousel.pdf", PDF)
    with transaction(store.engine) as session:
        session.add(
            Carousel(
                id=carousel_id,
                workspace_id=store.workspace_id,
                post_id=post.id,
                name="Harbour",
                prompt="the harbour at dawn",
                template="minimal",
                pdf_file=f"{folder}/carousel.pdf",
                thumbnail_file=f"{folder}/thumbnail.png",
            )
        )
        for position, data in enumerate(slides):
            key = f"{folder}/slide-{position}.{extension}"
            files.save(store.workspace_id, key, data)
            session.add(
                CarouselSlide(
                    carousel_id=carousel_id,
                    position=position,
                    title=f"Frame {position + 1}",
                    content="The harbour",
                    image_prompt="p",
                    image_file=key,
                )
            )
        row = session.get(Post, post.id)
        assert row is not None
        row.carousel = {"carouselId": carousel_id}
    return post.id


def publish(store: Store, networks: dict[str, Any], post_id: str, account: str) -> Any:
    runtime = Runtime(networks=networks)
    terms = PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime))
    [view] = publish_now(store.engine, store.workspace_id, post_id, [account], terms=terms)
    return view


def preview(store: Store, networks: dict[str, Any], post_id: str, account: str) -> Any:
    runtime = Runtime(networks=networks)
    [found] = dry_run(
        store.engine,
        store.workspace_id,
        post_id,
        [account],
        networks=Networks.of(runtime),
        files=files_of(runtime),
    )
    return found


def containers(fake: FakeThreads) -> list[dict[str, str]]:
    return [r.params for r in fake.requests_to(f"{USER_ID}/threads", "POST")]


def test_a_carousel_goes_live_as_a_carousel_fetched_from_the_bucket(
    bucket: Bucket, store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    slides = [picture("red"), picture("green"), picture("blue", "JPEG")]
    post_id = carousel_post(store, slides)

    shown = preview(store, networks, post_id, account)
    (first,) = shown["parts"]
    assert first["details"]["mediaType"] == "CAROUSEL" and len(first["details"]["images"]) == 3
    (left,) = first["details"]["leftOut"]
    assert "no documents" in left and "1 document" in left  # the PDF never goes
    assert "X-Amz" not in json.dumps(shown)  # a presigned link is not for show
    assert fake.requests == [] and fake.fetched == []

    view = publish(store, networks, post_id, account)
    assert view.state == "published", view.message
    items, carousel = containers(fake)[:3], containers(fake)[3]
    assert all(p["is_carousel_item"] == "true" and "text" not in p for p in items)
    assert [p["alt_text"] for p in items] == [f"Frame {n}. The harbour" for n in (1, 2, 3)]
    assert carousel["media_type"] == "CAROUSEL" and carousel["text"] == CAPTION
    assert carousel["children"].count(",") == 2
    # Meta's servers (the fake) fetched every slide from the bucket, byte for byte.
    assert fake.published_images() == [slides]
    assert len(fake.fetched) == 3 and all(bucket.name in url for url in fake.fetched)
    assert all("X-Amz-Signature=" in url for url in fake.fetched)
    (media,) = fake.state.media.values()
    assert media.media_type == "CAROUSEL_ALBUM" and media.text == CAPTION
    assert len(fake.requests_to("/threads_publish")) == 1  # the carousel, not its items

    again = publish(store, networks, post_id, account)
    assert again.state == "published" and len(fake.state.media) == 1


def test_one_slide_goes_as_an_image_post_with_its_text(
    bucket: Bucket, store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    slide = picture("orange", "JPEG")
    post_id = carousel_post(store, [slide], "jpg")
    view = publish(store, networks, post_id, account)
    assert view.state == "published", view.message
    (params,) = containers(fake)
    assert params["media_type"] == "IMAGE" and params["text"] == CAPTION
    assert params["alt_text"] == "Frame 1. The harbour" and "is_carousel_item" not in params
    assert fake.published_images() == [[slide]]
    assert fake.state.media[view.remoteId].media_type == "IMAGE"


def test_without_a_bucket_the_post_goes_as_text_and_the_dry_run_says_why(
    store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    post_id = carousel_post(store, [picture("red"), picture("green")])
    (first,) = preview(store, networks, post_id, account)["parts"]
    assert first["details"]["mediaType"] == "TEXT" and "images" not in first["details"]
    no_address, pdf = first["details"]["leftOut"]
    assert "public web address" in no_address and "2 images" in no_address
    assert "local folder" in no_address and "1 document" in pdf

    view = publish(store, networks, post_id, account)
    assert view.state == "published", view.message
    assert [p["media_type"] for p in containers(fake)] == ["TEXT"]
    assert fake.live_texts() == [CAPTION] and fake.fetched == []


def test_a_link_the_fake_cannot_fetch_fails_before_anything_is_live(
    faulty_bucket: tuple[Bucket, FaultyS3],
    store: Store,
    networks: dict[str, Any],
    fake: FakeThreads,
) -> None:
    _, proxy = faulty_bucket
    account = add_account(store, fake)
    post_id = carousel_post(store, [picture("red"), picture("green")])

    def bucket_goes_down(url: str) -> None:  # after the outbox read and signed
        proxy.down = True

    fake.before_fetch = bucket_goes_down
    view = publish(store, networks, post_id, account)
    assert view.state == "failed", view.message
    assert "could not be fetched" in view.message and "reachable" in view.message
    assert "X-Amz" not in view.message  # Meta quotes the link: socialgen does not
    assert fake.requests_to("/threads_publish") == [] and fake.live_texts() == []
    assert len(fake.fetched) == 1  # the first refusal stops the post


def test_a_bucket_that_cannot_sign_leaves_the_images_without_a_link(
    bucket: Bucket, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_id = carousel_post(store, [picture("red")])

    def unavailable(*_args: object) -> str:
        raise StorageUnavailable()

    monkeypatch.setattr(FileStore, "presign", unavailable)
    with transaction(store.engine) as session:
        post = session.get(Post, post_id)
        assert post is not None
        session.expunge(post)
    media = post_media(store.engine, store.files(), post)
    assert [item.kind for item in media] == ["document", "image"]
    assert all(item.public_url == "" for item in media) and media[1].data  # bytes still go


def test_the_images_threads_takes_and_what_it_leaves_out() -> None:
    def image(url: str = "https://b.example/s.png", mime: str = "image/png") -> MediaItem:
        return MediaItem("image", b"x", mime, public_url=url)

    many = images_of([image()] * 22)
    assert len(many.sent) == 20 and many.media_type == "CAROUSEL"
    assert many.left_out == ("Threads takes at most 20 images in a post: the last 2 are left out",)
    mixed = images_of([image(), image(mime="image/webp"), image(url="")])
    assert mixed.media_type == "IMAGE" and len(mixed.left_out) == 2
    assert "JPEG and PNG" in mixed.left_out[1] and "1 image" in mixed.left_out[0]
    assert "public_url" not in repr(image())  # a presigned link stays out of logs
    assert images_of([]).media_type == "TEXT" and images_of([]).left_out == ()
    assert OutgoingPost("p", "k", "t").media == ()


# --- the fake is as strict as Meta ------------------------------------------------------


def test_the_fake_refuses_images_as_meta_does(fake: FakeThreads, bucket: Bucket) -> None:
    token = fake.add_token()
    headers = {"Authorization": f"Bearer {token}"}
    create = f"{fake.api_url}/{USER_ID}/threads"
    bucket.write("ws/a.png", picture("red"))
    bucket.write("ws/a.txt", b"not an image")
    client = bucket.client()

    def url(key: str) -> str:
        return str(
            client.generate_presigned_url(
                "get_object", Params={"Bucket": bucket.name, "Key": f"{bucket.prefix}/{key}"}
            )
        )

    def post(path: str, **params: str) -> Any:
        return httpx.post(path, data=params, headers=headers).json()

    item = {"media_type": "IMAGE", "is_carousel_item": "true"}
    text_file = post(create, image_url=url("ws/a.txt"), **item)
    assert text_file["error"]["code"] == 9004
    assert post(create, image_url=url("ws/gone.png"), **item)["error"]["code"] == 9004
    child = post(create, image_url=url("ws/a.png"), **item)["id"]
    one = post(create, media_type="CAROUSEL", children=child, text="x")
    assert "2 to 20 children" in one["error"]["message"]
    twin = post(create, image_url=url("ws/a.png"), **item)["id"]
    not_ready = post(create, media_type="CAROUSEL", children=f"{child},{twin}", text="x")
    assert not_ready["error"]["code"] == 9007  # nobody read the items' status yet
    for waited in (child, twin):
        httpx.get(f"{fake.api_url}/{waited}", params={"fields": "status"}, headers=headers)
        httpx.get(f"{fake.api_url}/{waited}", params={"fields": "status"}, headers=headers)
    publish = f"{fake.api_url}/{USER_ID}/threads_publish"
    alone = post(publish, creation_id=child)
    assert "cannot be published alone" in alone["error"]["message"]
    carousel = post(create, media_type="CAROUSEL", children=f"{child},{twin}", text="x")
    assert "id" in carousel
    assert post(create, media_type="TEXT", text="x", image_url=url("ws/a.png"))["error"]
