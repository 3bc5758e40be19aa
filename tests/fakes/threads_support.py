"""Shared by the Threads tests (tests/test_publish_threads*.py): the settings they hand
the adapter, an adapter on the fake, and a post recording its parts as they go live."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.threads import adapter as threads
from tests.fakes.threads_routes import USERNAME
from tests.fakes.threads_server import FakeThreads

# The settings as the Runtime hands them, with a short timeout (the network_timeout
# setting: the hang tests wait for it), yet above what a loaded machine takes to answer
# (0.5 s timed a status read out now and then). The fake lives on 127.0.0.1.
SETTINGS = NetworkSettings(allow_private_urls=True, network_timeout=2.0)


class Saved(list[dict[str, str]]):
    """A `save_secret` that keeps what it was handed."""

    def __call__(self, secret: dict[str, str]) -> None:
        self.append(dict(secret))


def adapter_for(
    fake: FakeThreads,
    token: str | None = None,
    *,
    saved: Saved | None = None,
    settings: NetworkSettings = SETTINGS,
    **secret: str,
) -> threads.ThreadsAdapter:
    fields = {"access_token": token or fake.add_token(), **secret}
    credentials = AccountCredentials("threads", fake.api_url, f"@{USERNAME}", fields)
    adapter = threads.build(credentials, saved if saved is not None else Saved(), settings=settings)
    adapter.container_wait = 3.0
    return adapter


@dataclass
class Parts:
    """What `note_posted` was told, in order."""

    noted: list[tuple[int, str]] = field(default_factory=list)

    def __call__(self, index: int, remote_id: str) -> None:
        self.noted.append((index, remote_id))


def post(
    text: str = "Small teams ship weekly.",
    *,
    posted: tuple[str, ...] = (),
    earlier: datetime | None = None,
    parts: Parts | None = None,
    number: bool = False,
) -> OutgoingPost:
    return OutgoingPost(
        "pub-1",
        "key-1",
        text,
        number_parts=number,
        posted_parts=posted,
        earlier_attempt_at=earlier,
        part_posted=parts,
    )


def failure(call: object) -> PublishError:
    assert callable(call)
    with pytest.raises(PublishError) as caught:
        call()
    return caught.value


SENTENCE = "Small teams ship weekly because feedback beats a long plan."
LONG = " ".join([SENTENCE] * 20)  # 1,199 characters: a thread of three
