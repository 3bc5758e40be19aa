"""Shared by the X tests (tests/test_publish_x*.py): settings with a short timeout,
an adapter on the fake, a post, and a secret saver that keeps what it was handed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.x import adapter as x
from tests.fakes.x_server import FakeX, Fault

# The settings as the Runtime hands them, with a short timeout (the network_timeout
# setting): the fault tests wait for it. The fake lives on 127.0.0.1.
SETTINGS = NetworkSettings(allow_private_urls=True, network_timeout=0.5)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def fake() -> Iterator[FakeX]:
    with FakeX() as server:
        yield server


@pytest.fixture(autouse=True)
def _quick_second_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter looks at the timeline again after a pause: none in tests."""
    monkeypatch.setattr(x, "LOOK_AGAIN_AFTER", 0.01)


class Saved(list[dict[str, str]]):
    def __call__(self, secret: dict[str, str]) -> None:
        self.append(dict(secret))


class Noted(list[tuple[int, str]]):
    """`OutgoingPost.part_posted`: what the outbox would record."""

    def __call__(self, index: int, remote_id: str) -> None:
        self.append((index, remote_id))


def secret_for(fake: FakeX, token: str = "") -> dict[str, str]:
    return {"access_token": token or fake.add_token(), "user_id": fake.state.user_id}


def adapter_for(
    fake: FakeX,
    secret: dict[str, str] | None = None,
    saved: Saved | None = None,
    settings: NetworkSettings = SETTINGS,
) -> x.XAdapter:
    credentials = AccountCredentials(
        "x", fake.base_url, f"@{fake.state.username}", secret or secret_for(fake)
    )
    return x.build(credentials, saved if saved is not None else Saved(), settings=settings)


def post(
    text: str = "Small teams ship weekly.",
    *media: MediaItem,
    posted: tuple[str, ...] = (),
    earlier: datetime | None = None,
    noted: Noted | None = None,
    number_parts: bool = False,
) -> OutgoingPost:
    return OutgoingPost(
        "pub-1",
        "key-1",
        text,
        tuple(media),
        number_parts=number_parts,
        posted_parts=posted,
        earlier_attempt_at=earlier,
        part_posted=noted,
    )


def image(number: int, alt: str = "") -> MediaItem:
    return MediaItem("image", PNG + bytes([number]), "image/png", alt or f"Slide {number}")


def failure(call: object) -> PublishError:
    assert callable(call)
    with pytest.raises(PublishError) as caught:
        call()
    return caught.value


# Three parts on X, each its own text (X refuses a part that repeats another).
THREAD = " ".join(f"Week {n}: small teams ship because feedback beats a plan." for n in range(14))


def on_create(kind: str, **options: Any) -> Fault:
    """A fault on the call that creates a post (POST /2/tweets)."""
    return Fault(kind, path="/2/tweets", method="POST", **options)
