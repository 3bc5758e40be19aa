"""Pixelfed through the real outbox: an account connected with `accounts add pixelfed`
(the command on a local app, as accounts/cli.py registers it), a carousel post published
by the outbox's own passes to mastodon-mock behind Pixelfed's rules
(tests/pixelfed_support.py). What is live is read on the server's side."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
import typer
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.support import use_runtime
from socialgen.files.backends import files_of
from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.publishing.accounts.add_pixelfed_cli import add_pixelfed
from socialgen.publishing.networks.pixelfed import adapter as pixelfed_module
from socialgen.publishing.outbox.runner import publish_now
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import Carousel, CarouselSlide, Post, PostStatus, Publication
from tests.conftest import BACKEND, Store
from tests.mastodon_support import MastodonMock, MockUser
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.pixelfed_support import STATUSES, PixelfedProxy, png
from tests.pixelfed_support import proxy as proxy  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)

CAPTION = "Three frames from the harbour at dawn."


@pytest.fixture
def server(
    proxy: PixelfedProxy, networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[PixelfedProxy]:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")  # the servers live on 127.0.0.1
    networks["pixelfed"] = pixelfed_module  # the built-in module, named
    proxy.reset()
    yield proxy
    proxy.reset()


def connect(networks: dict[str, Any], server: PixelfedProxy, user: MockUser) -> dict[str, Any]:
    """`socialgen accounts add pixelfed --instance URL --token-stdin --json`."""
    app = typer.Typer()
    app.callback()(use_runtime)
    app.command("pixelfed")(add_pixelfed)
    result = CliRunner().invoke(
        app,
        ["pixelfed", "--instance", server.base_url, "--token-stdin", "--json"],
        input=user.token + "\n",
        obj=Runtime(networks=networks),
    )
    assert result.exit_code == 0, result.output
    assert user.token not in result.output
    added: dict[str, Any] = json.loads(result.stdout)
    return added


def carousel_post(store: Store, colours: tuple[str, ...]) -> str:
    """A scheduled post carrying a carousel: its slides and PDF in the file store."""
    post = store.post(CAPTION, status=PostStatus.SCHEDULED, when=utcnow() - timedelta(seconds=1))
    files, carousel_id = store.files(), new_id()
    folder = f"carousels/{carousel_id}"
    files.save(store.workspace_id, f"{folder}/carousel.pdf", b"%PDF-1.4 harbour")
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
        for position, colour in enumerate(colours):
            key = f"{folder}/slide-{position}.png"
            files.save(store.workspace_id, key, png(colour))
            session.add(
                CarouselSlide(
                    carousel_id=carousel_id,
                    position=position,
                    title=f"Frame {position + 1}",
                    content=f"The harbour in {colour}",
                    image_prompt="p",
                    image_file=key,
                )
            )
        row = session.get(Post, post.id)
        assert row is not None
        row.carousel = {"carouselId": carousel_id}
    return post.id


def publish(store: Store, networks: dict[str, Any], post_id: str, account_id: str) -> Any:
    """`posts publish` now, as a Runtime with these networks and its settings does it
    (the settings allow the loopback servers)."""
    runtime = Runtime(networks=networks)
    terms = PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime))
    [view] = publish_now(store.engine, store.workspace_id, post_id, [account_id], terms=terms)
    return view


def test_a_carousel_post_goes_live_once_through_the_outbox(
    store: Store, networks: dict[str, Any], server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pfbox")
    added = connect(networks, server, user)
    assert added["network"] == "pixelfed" and added["handle"].startswith(f"@{user.username}@")
    post_id = carousel_post(store, ("red", "green", "blue"))

    view = publish(store, networks, post_id, added["id"])
    assert view.state == "published", view.message
    [status] = mastodon_mock.statuses(user)
    assert view.remoteId == status["id"] and view.url == status["url"]
    assert CAPTION in status["content"]
    descriptions = [a["description"] for a in status["media_attachments"]]
    slides = enumerate(("red", "green", "blue"), start=1)
    assert descriptions == [f"Frame {i}. The harbour in {colour}" for i, colour in slides]

    again = publish(store, networks, post_id, added["id"])  # published stays published
    assert again.state == "published" and mastodon_mock.status_count(user) == 1
    assert server.sent("POST", STATUSES) == 1


def test_a_post_without_an_image_fails_with_the_reason_and_sends_nothing(
    store: Store, networks: dict[str, Any], server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pfbox")
    added = connect(networks, server, user)
    post = store.post("Words only", status=PostStatus.SCHEDULED, when=utcnow())
    server.requests.clear()

    view = publish(store, networks, post.id, added["id"])
    assert view.state == "failed" and "Pixelfed needs an image" in view.message
    assert server.requests == [] and mastodon_mock.status_count(user) == 0


def test_a_first_attempt_cut_after_sending_is_not_sent_twice(
    store: Store, networks: dict[str, Any], server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """The connection closes unanswered and the post shows up on the account only
    afterwards: the first attempt is queued again (it may be live), the retry finds
    the post before sending and records it."""
    user = mastodon_mock.new_user("pfbox")
    added = connect(networks, server, user)
    post_id = carousel_post(store, ("white",))
    server.late, server.late_seconds = 1, 1.0

    first = publish(store, networks, post_id, added["id"])
    assert first.state == "queued", first.message
    assert "may be live" in first.message and "looks for it on the account" in first.message
    deadline = time.monotonic() + 10
    while mastodon_mock.status_count(user) == 0:  # the instance makes it afterwards
        assert time.monotonic() < deadline
        time.sleep(0.05)

    with transaction(store.engine) as session:  # the retry is due now, not in 30 s
        session.execute(sa.update(Publication).values(next_attempt_at=utcnow()))
    second = publish(store, networks, post_id, added["id"])
    assert second.state == "published", second.message
    assert second.remoteId == mastodon_mock.statuses(user)[0]["id"]
    assert server.sent("POST", STATUSES) == 1 and mastodon_mock.status_count(user) == 1
