"""Shared by tests/test_networks_faces.py: one `Rig` per network added with X: its
server (the fake, emulator or real relay that network's own tests use), the body
that connects an account there (POST social-accounts and the MCP tool `add_account`
take the same fields), the post to publish, and what the server holds, read on its
side.

    rig = request.getfixturevalue(f"{network}_rig")
    rig.body                 {network, secret, handle?, serviceUrl?}
    rig.make_post(store)     a post's id (Pixelfed's carries a one-slide carousel)
    rig.live()               the texts the account has on the server now, oldest first
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from socialgen.kit.ids import new_id
from socialgen.publishing.networks.nostr.keys import signer_from
from socialgen.store.engine import transaction
from socialgen.store.tables import Carousel, CarouselSlide, Post
from tests.conftest import Store
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.threads_routes import USERNAME as THREADS_USER
from tests.fakes.threads_server import FakeThreads
from tests.fakes.x_server import FakeX
from tests.mastodon_support import MastodonMock
from tests.nostr_support import NostrRelay
from tests.pixelfed_support import STATUSES, PixelfedProxy, png
from tests.telegram_support import TelegramEmulator, new_token

NETWORKS = ("x", "threads", "telegram", "discord", "nostr", "pixelfed")
CHAT = "-1001234567890"  # the emulator wants a numeric chat id


def text_for(network: str) -> str:
    return f"Small teams ship weekly: live on {network} through socialgen's faces."


@dataclass
class Rig:
    network: str
    secret: str  # what the user hands socialgen
    handle: str  # what the account view's handle starts with
    live: Callable[[], list[str]]
    service_url: str = ""
    channel: str = ""  # the handle sent with the secret (Telegram's channel)
    wrong_secret: str = ""  # one the server refuses (the MCP tests)
    sends: Callable[[], int] = lambda: 0  # create calls that reached the server
    carousel: bool = False  # Pixelfed: a post needs an image
    text: str = field(init=False)

    def __post_init__(self) -> None:
        self.text = text_for(self.network)

    @property
    def body(self) -> dict[str, str]:
        fields = {"network": self.network, "secret": self.secret}
        if self.channel:
            fields["handle"] = self.channel
        if self.service_url:
            fields["serviceUrl"] = self.service_url
        return fields

    def with_secret(self, secret: str) -> dict[str, str]:
        return {**self.body, "secret": secret}

    def make_post(self, store: Store) -> str:
        post = store.post(self.text)
        if self.carousel:
            attach_slide(store, post.id)
        return post.id


@pytest.fixture
def x_rig() -> Iterator[Rig]:
    with FakeX() as fake:
        yield Rig(
            "x",
            fake.add_token(),
            f"@{fake.state.username}",
            lambda: [tweet.text for tweet in fake.posts],
            service_url=fake.base_url,
            wrong_secret="never-issued-" + secrets.token_urlsafe(24),
            sends=lambda: len(fake.requests_to("/2/tweets", "POST")),
        )


@pytest.fixture
def threads_rig() -> Iterator[Rig]:
    with FakeThreads() as fake:
        fake.state.container_polls = 0  # ready at once: no pause between looks
        yield Rig(
            "threads",
            fake.add_token(),
            f"@{THREADS_USER}",
            fake.live_texts,
            service_url=fake.api_url,
            sends=lambda: len(fake.requests_to("/threads_publish")),
        )


@pytest.fixture
def discord_rig() -> Iterator[Rig]:
    with FakeDiscord() as fake:
        hook = fake.add_webhook("Release notes")
        yield Rig(
            "discord",
            fake.url_of(hook),
            f"#{hook.channel_id}",  # no channel name given: the channel's id
            lambda: fake.texts(hook),
            service_url=fake.base_url,
            sends=lambda: len(fake.requests_to("POST")),
        )


@pytest.fixture
def telegram_rig(telegram_emulator: TelegramEmulator) -> Rig:
    token = new_token()  # the emulator keeps each bot's messages apart
    return Rig(
        "telegram",
        token,
        CHAT,
        lambda: telegram_emulator.texts(token),
        service_url=telegram_emulator.base_url,
        channel=CHAT,
        sends=lambda: len(telegram_emulator.sent(token)),
    )


@pytest.fixture
def nostr_rig(nostr_relay: NostrRelay) -> Rig:
    signer = signer_from(secrets.token_hex(32))
    nsec = signer.nsec
    flipped = "q" if nsec[-1] != "q" else "p"  # its checksum broken: not a key
    return Rig(
        "nostr",
        nsec,
        signer.npub,
        lambda: [note["content"] for note in nostr_relay.notes_of(signer.pubkey)],
        service_url=nostr_relay.url,
        wrong_secret=nsec[:-1] + flipped,
        sends=lambda: len(nostr_relay.notes_of(signer.pubkey)),
    )


@pytest.fixture
def pixelfed_rig(proxy: PixelfedProxy, mastodon_mock: MastodonMock) -> Iterator[Rig]:
    proxy.reset()
    user = mastodon_mock.new_user("faces")
    yield Rig(
        "pixelfed",
        user.token,
        f"@{user.username}@",
        lambda: [_plain(status["content"]) for status in reversed(mastodon_mock.statuses(user))],
        service_url=proxy.base_url,
        sends=lambda: proxy.sent("POST", STATUSES),
        carousel=True,
    )
    proxy.reset()
    mastodon_mock.clear_faults()


def attach_slide(store: Store, post_id: str) -> None:
    """A one-slide carousel on the post, its image and PDF in the file store (what
    `posts publish` sends to Pixelfed as the post's image)."""
    files, carousel_id = store.files(), new_id()
    folder = f"carousels/{carousel_id}"
    files.save(store.workspace_id, f"{folder}/carousel.pdf", b"%PDF-1.4 harbour")
    files.save(store.workspace_id, f"{folder}/slide-0.png", png("teal"))
    with transaction(store.engine) as session:
        session.add(
            Carousel(
                id=carousel_id,
                workspace_id=store.workspace_id,
                post_id=post_id,
                name="Harbour",
                prompt="the harbour at dawn",
                template="minimal",
                pdf_file=f"{folder}/carousel.pdf",
                thumbnail_file=f"{folder}/thumbnail.png",
            )
        )
        session.add(
            CarouselSlide(
                carousel_id=carousel_id,
                position=0,
                title="Frame 1",
                content="The harbour in teal",
                image_prompt="p",
                image_file=f"{folder}/slide-0.png",
            )
        )
        row = session.get(Post, post_id)
        assert row is not None
        row.carousel = {"carouselId": carousel_id}


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&#39;", "'").strip()
