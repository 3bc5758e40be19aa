"""Previews per network (issue 41, item 5): what each of the nine networks makes of a
post, built from the networks' own rules. A text post's parts are checked against
what the dry run sends for the same network (dryrun_unconnected.py, the adapters'
text rules), so the preview cannot drift from what goes out; LinkedIn's fold, X's
URL weight, the media each network takes and the link cards are checked against
the post itself. The store-facing part (which networks, the carousel, the first
comment) runs on SQLite, and on PostgreSQL with SOCIALGEN_TEST_DATABASE_URL."""

from __future__ import annotations

import io
import random
import re

import pytest
from PIL import Image

from socialgen.kit.errors import NotFound
from socialgen.kit.ids import new_id
from socialgen.publishing.followups.service import set_first_comment
from socialgen.publishing.networks.base import MediaItem
from socialgen.publishing.networks.linkedin.text import escape_little
from socialgen.publishing.outbox.dryrun_unconnected import unconnected_preview
from socialgen.publishing.preview.fold import LINKEDIN_FOLD_CHARACTERS, SEE_MORE
from socialgen.publishing.preview.schemas import NetworkPreview, PostPreview
from socialgen.publishing.preview.service import network_preview, preview_post
from socialgen.publishing.registry import BUILT_IN
from socialgen.store.engine import transaction
from socialgen.store.tables import Carousel, CarouselSlide, Post
from tests.conftest import Store
from tests.outbox_support import add_account, due_publication

# fmt: off
WORDS = (
    "ship", "weekly", "small", "teams", "feedback", "compounds", "every", "release",
    "teaches", "something", "about", "customers", "onboarding", "pricing", "latency",
    "reliability", "deserves", "attention", "because", "nobody", "reads", "changelogs",
    "unless", "they", "are", "short", "concrete", "honest", "and", "useful",
)
# fmt: on


def sentences(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
        out.append(" ".join(words).capitalize() + rng.choice([".", "!", "?"]))
    return out


def long_post(seed: int = 7, characters: int = 4600) -> str:
    """Paragraphs of sentences, longer than a Nostr note (4,000) and LinkedIn's 3,000."""
    paragraphs: list[str] = []
    rng = random.Random(seed)
    while sum(len(p) + 2 for p in paragraphs) < characters:
        paragraphs.append(" ".join(sentences(rng.randint(0, 10**6), rng.randint(2, 5))))
    return "\n\n".join(paragraphs)


def png(colour: str = "teal") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return out.getvalue()


def images(count: int, *, public: bool = False) -> tuple[MediaItem, ...]:
    return tuple(
        MediaItem(
            "image",
            png(),
            "image/png",
            alt_text=f"Slide {number}",
            public_url=f"https://bucket.example/slide-{number}.png" if public else "",
        )
        for number in range(1, count + 1)
    )


PDF = MediaItem("document", b"%PDF-1.4 the deck", "application/pdf", title="The deck")


def preview(
    network: str,
    text: str,
    media: tuple[MediaItem, ...] = (),
    *,
    number_parts: bool = False,
    comment: str | None = None,
) -> NetworkPreview:
    return network_preview((network, None, None), text, media, number_parts, comment)


def media_of(shown: NetworkPreview) -> list[list[str]]:
    return [[item.kind for item in part.media] for part in shown.parts]


# --- the parts a long post becomes -----------------------------------------------------


@pytest.mark.parametrize("number_parts", [False, True])
@pytest.mark.parametrize("network", BUILT_IN)
def test_a_long_post_becomes_the_parts_the_dry_run_sends(network: str, number_parts: bool) -> None:
    text = long_post(seed=len(network))
    dry = unconnected_preview(network, "", text, [], number_parts=number_parts)
    shown = preview(network, text, number_parts=number_parts)
    if network in ("linkedin", "pixelfed"):
        # One post, never a thread: LinkedIn refuses past 3,000 characters, Pixelfed a
        # post without an image, and both say so as the dry run does.
        assert shown.parts == [] and shown.error == dry["error"], shown
        assert ("3000" in shown.error) if network == "linkedin" else ("image" in shown.error)
        return
    assert shown.error is None
    sent = [part["text"] for part in dry["parts"]]
    assert [part.text for part in shown.parts] == sent
    assert len(shown.parts) > 1, network  # every one of them threads a post this long
    for part in shown.parts:
        assert 0 < part.count <= part.limit, (network, part.number, part.count)
    assert shown.parts[0].kind == "post"
    # Nothing is lost or added but the markers asked for.
    words = " ".join(part.text for part in shown.parts).split()
    if number_parts:
        total = len(shown.parts)
        assert [w for w in words if re.fullmatch(r"\d+/\d+", w)] == [
            f"{n}/{total}" for n in range(1, total + 1)
        ]
        words = [w for w in words if not re.fullmatch(r"\d+/\d+", w)]
    assert words == text.split()
    assert any("goes out as" in warning for warning in shown.warnings)


def test_linkedin_shows_the_text_as_read_and_the_dry_run_sends_it_escaped() -> None:
    text = "Why I learned (C#) in 2024: #learning [notes] <3 " + " ".join(sentences(3, 3))
    shown = preview("linkedin", text)
    (part,) = shown.parts
    assert part.text == text and part.count == len(text) and part.limit == 3000
    dry = unconnected_preview("linkedin", "", text, [], number_parts=False)
    assert dry["parts"][0]["text"] == escape_little(part.text)


def test_x_counts_a_url_as_23_whatever_its_length() -> None:
    url = "https://example.com/" + "long-path/" * 12 + "?utm_source=socialgen"
    before, after = "Read the whole story here: ", " (it is worth it)"
    shown = preview("x", before + url + after)
    (part,) = shown.parts
    assert len(url) > 100
    assert part.count == len(before) + 23 + len(after)
    assert part.unit == "weighted characters" and part.limit == 280
    # Mastodon counts a link as 23 too; Threads and Discord count it whole.
    assert preview("mastodon", before + url + after).parts[0].count == part.count
    assert preview("discord", before + url + after).parts[0].count == len(before + url + after)


# --- LinkedIn's fold ---------------------------------------------------------------------


def test_the_linkedin_fold_lands_at_a_word_end_near_210_characters() -> None:
    for seed in range(12):
        text = " ".join(sentences(seed, 8))
        shown = preview("linkedin", text)
        fold = shown.fold
        assert fold is not None and len(text) > LINKEDIN_FOLD_CHARACTERS
        assert text.startswith(fold.visible) and fold.at == len(fold.visible)
        assert fold.at <= LINKEDIN_FOLD_CHARACTERS
        assert text[fold.at] == " ", (seed, text[fold.at - 5 : fold.at + 5])  # a word's end
        longest = max(len(word) for word in text.split())
        assert fold.at >= LINKEDIN_FOLD_CHARACTERS - longest - 1
        assert fold.hidden == len(text[fold.at :].strip())
        assert fold.marker == SEE_MORE and "210" in fold.reason


def test_a_short_post_has_no_fold_and_three_lines_fold_earlier() -> None:
    assert preview("linkedin", "A short post.\nTwo lines.\nThree.").fold is None
    lines = ["The hook.", "", "A second thought.", "The rest of the story."]
    fold = preview("linkedin", "\n".join(lines)).fold
    assert fold is not None
    assert fold.visible == "\n".join(lines[:3]) and "3 lines" in fold.reason
    assert fold.hidden == len(lines[3])
    # No network but LinkedIn folds a part.
    text = " ".join(sentences(1, 12))
    assert [n for n in BUILT_IN if n != "pixelfed" and preview(n, text).fold] == ["linkedin"]


def test_one_word_longer_than_the_fold_is_cut_at_210() -> None:
    word = "a" * 400
    fold = preview("linkedin", word).fold
    assert fold is not None and fold.at == LINKEDIN_FOLD_CHARACTERS


# --- the media each network takes ----------------------------------------------------


def test_the_media_each_network_takes_with_their_limits() -> None:
    media = (PDF, *images(6))
    text = "Six slides and the deck."
    took = {network: preview(network, text, media) for network in BUILT_IN}
    assert media_of(took["x"]) == [["image"] * 4]
    assert any("Images 5 to 6 left out" in line for line in took["x"].leftOut)
    assert media_of(took["bluesky"]) == [["image"] * 4, ["image"] * 2]  # a part of images
    assert media_of(took["mastodon"]) == [["image"] * 4]
    assert any("2 images" in line for line in took["mastodon"].leftOut)
    assert media_of(took["linkedin"]) == [["document"]]
    assert any("6 slide images" in line for line in took["linkedin"].leftOut)
    assert media_of(took["telegram"]) == [["image"] * 6, ["document"]]  # album, then the deck
    assert took["telegram"].parts[0].kind == "caption"
    assert media_of(took["discord"]) == [["image"] * 6 + ["document"]]
    assert media_of(took["nostr"]) == [[]] and len(took["nostr"].leftOut) == 2
    assert media_of(took["pixelfed"]) == [["image"] * 4]
    assert media_of(took["threads"]) == [[]]  # no public address without a bucket
    assert any("public web address" in line for line in took["threads"].leftOut)


def test_a_carousels_pdf_goes_only_where_documents_go() -> None:
    media = (PDF, *images(3))
    carrying = {
        network
        for network in BUILT_IN
        if any(
            item.kind == "document"
            for part in preview(network, "Deck", media).parts
            for item in part.media
        )
    }
    assert carrying == {"linkedin", "telegram", "discord"}
    for network in set(BUILT_IN) - carrying:
        assert any(
            "PDF" in line or "document" in line for line in preview(network, "Deck", media).leftOut
        ), network


def test_threads_takes_a_carousel_of_up_to_20_only_from_a_bucket() -> None:
    shown = preview("threads", "Twenty-five slides.", images(25, public=True))
    assert media_of(shown) == [["image"] * 20]
    assert any("last 5" in line for line in shown.leftOut)


def test_bluesky_says_when_an_image_is_re_encoded_to_fit() -> None:
    big = MediaItem("image", b"\x89PNG" + bytes(1_200_000), "image/png", alt_text="big")
    (part,) = preview("bluesky", "One big image.", (big,)).parts
    assert "re-encoded" in part.media[0].note and part.media[0].bytes > 1_000_000


# --- link cards, first comments, warnings ---------------------------------------------


def test_link_cards_per_network_and_images_keep_them_away() -> None:
    url = "https://example.com/launch"
    text = f"We launched. Details: {url} and more soon."
    cards = {n: preview(n, text).linkCard for n in BUILT_IN if n != "pixelfed"}
    assert all(card is not None and card.url == url for card in cards.values())
    made = {n for n, card in cards.items() if card is not None and card.card}
    assert made == {"bluesky", "mastodon", "x", "threads", "telegram", "discord"}
    assert cards["bluesky"] is not None and cards["bluesky"].title == url  # no page fetched
    assert cards["mastodon"] is not None and cards["mastodon"].title is None
    with_images = {
        n: preview(n, text, images(1, public=True)).linkCard for n in ("bluesky", "x", "telegram")
    }
    assert all(card is not None and not card.card for card in with_images.values())
    assert preview("pixelfed", text, images(1)).linkCard.card is False  # type: ignore[union-attr]


def test_x_makes_its_card_from_the_parts_last_link() -> None:
    text = "First https://example.com/one then https://example.com/two to end."
    card = preview("x", text).linkCard
    assert card is not None and card.url == "https://example.com/two" and card.card


def test_the_first_comment_under_each_network_that_takes_one() -> None:
    comment = "The slides: https://example.com/deck"
    shown = {n: preview(n, "A post.", images(1), comment=comment) for n in BUILT_IN}
    takes = {n for n, p in shown.items() if p.firstComment and p.firstComment.supported}
    assert takes == set(BUILT_IN) - {"discord"}
    x_comment = shown["x"].firstComment
    assert x_comment is not None and x_comment.count == len("The slides: ") + 23
    assert shown["linkedin"].firstComment.limit == 1250  # type: ignore[union-attr]
    long = " ".join(sentences(5, 12))
    warned = preview("x", "A post.", comment=long).warnings
    assert any("first comment" in w and "replies" in w for w in warned)
    too_long = preview("linkedin", "A post.", comment="word " * 300).warnings
    assert any("1250" in w and "refused" in w for w in too_long)


def test_more_than_five_hashtags_is_a_warning_everywhere() -> None:
    text = "Launch day! #ship #teams #saas #build #product #launch #startup"
    for network in BUILT_IN:
        shown = preview(network, text, images(1))
        assert any("7 hashtags" in w for w in shown.warnings), network
        assert not any("hashtag" in w for w in preview(network, "#one #two", images(1)).warnings)


# --- the store: which networks, the carousel, the first comment ------------------------


def carousel(store: Store, post_id: str, slides: int) -> None:
    files, carousel_id = store.files(), new_id()
    folder = f"carousels/{carousel_id}"
    files.save(store.workspace_id, f"{folder}/carousel.pdf", b"%PDF-1.4 harbour")
    with transaction(store.engine) as session:
        session.add(
            Carousel(
                id=carousel_id,
                workspace_id=store.workspace_id,
                post_id=post_id,
                name="Harbour",
                prompt="the harbour",
                template="minimal",
                pdf_file=f"{folder}/carousel.pdf",
                thumbnail_file=f"{folder}/thumbnail.png",
            )
        )
        for position in range(slides):
            key = f"{folder}/slide-{position}.png"
            files.save(store.workspace_id, key, png())
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
        row = session.get(Post, post_id)
        assert row is not None
        row.carousel = {"carouselId": carousel_id}


def build(store: Store, post_id: str, *refs: str) -> PostPreview:
    return preview_post(store.engine, store.workspace_id, post_id, refs, files=store.files())


def test_which_networks_when_none_are_named(store: Store) -> None:
    post = store.post("A post about shipping weekly")
    nothing = build(store, post.id)
    assert nothing.chosenBy == "networks" and "No account is connected" in nothing.note
    assert [n.network for n in nothing.networks] == list(BUILT_IN)
    assert not any(n.connected for n in nothing.networks)
    x_id = add_account(store, "@shipper", "x")
    linkedin_id = add_account(store, "urn:li:person:abc", "linkedin")
    every = build(store, post.id)
    assert every.chosenBy == "accounts"
    assert [(n.network, n.accountId) for n in every.networks] == [
        ("linkedin", linkedin_id),
        ("x", x_id),
    ]
    scheduled_id, _ = due_publication(store, x_id, content="Scheduled to X only")
    mine = build(store, scheduled_id)
    assert mine.chosenBy == "publications"
    assert [(n.network, n.account) for n in mine.networks] == [("x", "@shipper")]


def test_named_accounts_and_bare_networks(store: Store) -> None:
    post = store.post("Named")
    x_id = add_account(store, "@shipper", "x")
    shown = build(store, post.id, "x", "threads", "@shipper", "linkedin")
    assert shown.chosenBy == "asked"
    assert [(n.network, n.accountId) for n in shown.networks] == [
        ("x", x_id),  # "x": my one account there; "@shipper" the same one, shown once
        ("threads", None),
        ("linkedin", None),
    ]
    with pytest.raises(NotFound, match="No social account 'nosuch'"):
        build(store, post.id, "nosuch")
    with pytest.raises(NotFound):
        build(store, "no-such-post", "x")
    other = store.post("Elsewhere", workspace_id=store.workspace("Other"))
    with pytest.raises(NotFound):
        build(store, other.id, "x")


def test_a_carousel_and_a_first_comment_from_the_store(store: Store) -> None:
    post = store.post("Eight frames of the harbour at dawn.")
    carousel(store, post.id, slides=6)
    with transaction(store.engine) as session:
        set_first_comment(session, store.workspace_id, post.id, "Prints: https://example.com")
    shown = build(store, post.id, "linkedin", "x", "discord", "telegram")
    assert shown.media.document == "Harbour" and shown.media.slides == 6
    assert shown.media.images == 4 and "first 4 slides" in shown.media.note
    assert shown.firstComment == "Prints: https://example.com"
    by = {n.network: n for n in shown.networks}
    assert media_of(by["linkedin"]) == [["document"]]
    assert media_of(by["x"]) == [["image"] * 4]
    assert media_of(by["telegram"]) == [["image"] * 4, ["document"]]
    assert by["x"].firstComment is not None and by["x"].firstComment.supported
    assert by["discord"].firstComment is not None and not by["discord"].firstComment.supported


def test_x_weighs_ascii_text_as_it_weighs_it_cluster_by_cluster() -> None:
    """X's count takes a short cut for ASCII text (a preview weighs long posts often):
    the same text behind one non-ASCII character goes the long way, one cluster at a
    time, and must weigh the same plus that character and its space."""
    from socialgen.publishing.networks.x.text import weighted_length

    rng = random.Random(41)
    alphabet = "abcXYZ019 .,!?#@/:\r\n\t-_~" + "".join(chr(c) for c in range(0, 32))
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        text += rng.choice(["", " https://example.com/x", " example.com/path"])
        assert weighted_length("é " + text) - 2 == weighted_length(text), repr(text)
