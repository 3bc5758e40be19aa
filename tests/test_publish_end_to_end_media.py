"""A carousel post end to end, made by `socialgen carousel create` (the in-process
scripted text model, offline procedural images) and published with `socialgen posts
publish`: to the fake LinkedIn (tests/fakes/linkedin_server.py) as a document post
whose PDF is the carousel's own, byte for byte, and to mastodon-mock as a status
with the first 4 slides as images, each described by its slide. What arrived is read
on the servers' side. The secrets check of tests/publish_e2e_support.py ends each test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from sqlmodel import col, select

from socialgen.app.runtime import Runtime
from socialgen.store.engine import read_session
from socialgen.store.tables import Carousel, CarouselSlide
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedModel
from tests.fakes.linkedin_server import FakeLinkedIn
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

SLIDES = 5  # one more than a status takes


@pytest.fixture(scope="module")
def linkedin_server() -> Iterator[FakeLinkedIn]:
    with FakeLinkedIn() as server:
        yield server


@pytest.fixture
def linkedin(
    linkedin_server: FakeLinkedIn, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeLinkedIn]:
    """The fake as LinkedIn itself. `accounts add linkedin` has no option for another
    API host (the HTTP API's serviceUrl does): the network's default is pointed at it."""
    monkeypatch.setattr(
        "socialgen.publishing.networks.linkedin.adapter.DEFAULT_SERVICE_URL",
        linkedin_server.base_url,
    )
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", linkedin_server.base_url)
    monkeypatch.delenv("SOCIALGEN_LINKEDIN_VERSION", raising=False)
    yield linkedin_server


@pytest.fixture(autouse=True)
def _offline(
    monkeypatch: pytest.MonkeyPatch, scripted_model: ScriptedModel, witness: Witness
) -> None:
    witness.runtime = Runtime(text_model=scripted_model)
    monkeypatch.delenv("SOCIALGEN_IMAGE_MODEL", raising=False)
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "200")


def make_carousel(w: Witness, store: Store) -> tuple[str, Carousel, list[CarouselSlide]]:
    """A carousel made by the CLI; its post id, its row and its slides in order."""
    result = w.cli(
        "carousel", "create", "why small teams ship weekly", "--slides", str(SLIDES), "--json"
    )
    done = json.loads(result.stdout.splitlines()[-1])["data"]["data"]
    with read_session(store.engine) as session:
        carousel = session.get(Carousel, done["carouselId"])
        assert carousel is not None and carousel.post_id
        slides = session.exec(
            select(CarouselSlide)
            .where(col(CarouselSlide.carousel_id) == carousel.id)
            .order_by(col(CarouselSlide.position))
        ).all()
        session.expunge_all()
    assert len(slides) == SLIDES
    return carousel.post_id, carousel, list(slides)


def test_a_carousel_goes_to_linkedin_as_its_pdf_and_to_mastodon_as_slides(
    store: Store, linkedin: FakeLinkedIn, mastodon_mock: MastodonMock, witness: Witness
) -> None:
    token = linkedin.add_token()
    user = mastodon_mock.new_user("slides")
    witness.secret(token, user.token)
    on_linkedin = witness.cli_json(
        "accounts", "add", "linkedin", "--token-stdin", stdin=token + "\n"
    )
    assert on_linkedin["handle"] == linkedin.member.urn
    on_mastodon = witness.cli_json(
        "accounts", "add", "mastodon", "--instance", mastodon_mock.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    witness.stored_secrets(store)
    post_id, carousel, slides = make_carousel(witness, store)
    pdf = store.files().read(store.workspace_id, carousel.pdf_file)
    assert pdf.startswith(b"%PDF")

    answer = witness.cli_json(
        "posts", "publish", post_id, "--to", on_linkedin["id"], "--to", on_mastodon["id"]
    )
    states = {row["network"]: row for row in answer["publications"]}
    assert {n: r["state"] for n, r in states.items()} == {
        "linkedin": "published",
        "mastodon": "published",
    }, answer

    (posted,) = linkedin.posts
    assert posted.urn == states["linkedin"]["remoteId"]
    document = posted.body["content"]["media"]
    assert document["id"].startswith("urn:li:document:")
    assert linkedin.uploads[document["id"]] == pdf  # the carousel's PDF, byte for byte
    assert document["title"] == carousel.name

    (status,) = mastodon_mock.statuses(user)
    assert status["id"] == states["mastodon"]["remoteId"]
    attachments = status["media_attachments"]
    assert [a["type"] for a in attachments] == ["image"] * 4
    assert [a["description"] for a in attachments] == [  # the scripted model's slides
        f"Lesson {n}. The text of slide {n}" for n in range(1, 5)
    ]
    first = httpx.get(attachments[0]["url"], timeout=10)
    assert first.status_code == 200 and first.content == store.files().read(
        store.workspace_id, slides[0].image_file
    )
    shown = witness.cli_json("posts", "show", post_id)
    assert shown["status"] == "published"
    assert posted.text == shown["postContent"] == _plain(status["content"])


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html.replace("</p><p>", "\n\n").replace("<br>", "\n"))
