"""X's text rules (networks/x/text.py): twitter-text's weighted count, checked against
the weighted cases of twitter-text's conformance suite (conformance/validate.yml,
WeightedTweetsWithDiscountedEmojiCounterTest and UnicodeDirectionalMarkerCounterTest,
configuration v3), re-expressed here as data; and the thread split."""

from __future__ import annotations

import pytest

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.x.text import (
    MAX_WEIGHTED,
    connect_command,
    is_valid,
    split_text,
    unconnected_parts,
    weighted_length,
)
from tests.conftest import BACKEND

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

X10 = "xxxxxxxxxx-"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
KANA = "あいうえおかきくけこ"
POEM_LINE = "故人西辞黄鹤楼\uff0c烟花三月下扬州\u3002"  # 16 CJK characters
LONG_LABEL_URL = "https://" + "somesuperlongurl" * 249 + ".com/foo"  # a 3,984-character label

# (what, text, weightedLength, valid): the suite's cases, its long texts built here.
CONFORMANCE = [
    ("regular post with a url", "Hi http://test.co", 26, True),
    ("just a url", "http://test.co", 23, True),
    ("long, overflowing at 280", "285 chars-" + X10 * 25, 285, False),
    ("url in the middle", "285 chars- http://www.twitter.com/jack " + X10 * 24, 299, False),
    ("url at the end", X10 * 24 + " http://www.twitter.com/jack ", 289, False),
    ("ten urls, no overflow", "https://www.twitter.com/aloha " * 10, 240, True),
    ("160 CJK characters", POEM_LINE * 10, 320, False),
    ("160 emoji", "\U0001f637" * 160, 320, False),
    ("3 latin + 160 CJK", "the" + POEM_LINE * 10, 323, False),
    ("a decomposed character normalised", "282 chars-" + X10 * 24 + "xxxxxA\u0301x", 281, False),
    ("latin, emoji and a family", "H\U0001f431\u263a" + FAMILY, 7, True),
    ("emoji in and out of the BMP", "\U0001f637\U0001f47e\U0001f621\U0001f525\U0001f4a9", 10, True),
    ("skin tone and a ZWJ sequence", "\U0001f64b\U0001f3fd\U0001f468\u200d\U0001f3a4", 4, True),
    (
        "general punctuation, no ZWJ/ZWNJ",
        "This is a tweet with general punctuation characters: "
        + "".join(chr(c) for c in range(0x2000, 0x200C))
        + " \u2010 \u2011 \u2012 \u2013 \u2014 \u2015 \u2016  \u2017 \u2018 \u2019 \u201a \u201b"
        + " \u201c \u201d \u201e \u201f \u2032 \u2033 \u2034 \u2035 \u2036 \u2037",
        110,
        True,
    ),
    (
        "long urls with invalid domain labels, and a short url",
        "Long url with invalid domain labels and a short url: "
        + f"{LONG_LABEL_URL} " * 3
        + "https://validurl.com",
        12079,
        False,
    ),
    ("a 64-character domain without protocol", "randomurl" * 7 + "s.com", 68, True),
    ("CJK host over 63 as punycode", f"{KANA * 12} http://{KANA * 5}あいう.com", 358, False),
    ("CJK host within 63 as punycode", f"{KANA * 12} http://{KANA * 5}あい.com", 264, True),
    ("140 family emoji", FAMILY * 140, 280, True),
    ("keycap: a latin character and a mark", "1\u20e3", 2, True),
    (
        "Unicode 10 emoji",
        "Unicode 10.0 emoji: \U0001f92a; \U0001f9d5; \U0001f9d5\U0001f3fe; "
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
        34,
        True,
    ),
    (
        "Unicode 9 emoji",
        "Unicode 9.0 emoji: \U0001f920; \U0001f483; \U0001f483\U0001f3fe",
        29,
        True,
    ),
    ("invalid characters", "ABC\u202a\uffffABC\ufffe", 12, False),
    ("directional marks around a url", "\u2066\u202ahttp://foobar.پاکستان/\u202c\u2069", 31, True),
]


@pytest.mark.parametrize(
    ("what", "text", "weight", "valid"), CONFORMANCE, ids=[c[0] for c in CONFORMANCE]
)
def test_twitter_text_conformance(what: str, text: str, weight: int, valid: bool) -> None:
    assert weighted_length(text) == weight
    assert is_valid(text) is valid


def test_a_url_weighs_23_whatever_its_length_and_trailing_punctuation_is_text() -> None:
    short, long = "https://a.co", "https://example.com/" + "p" * 300
    assert weighted_length(short) == weighted_length(long) == 23
    assert weighted_length(f"See {long}.") == 4 + 23 + 1
    assert weighted_length("www.example.com") == 23  # no scheme, a generic TLD
    assert weighted_length("notes.txt") == 9  # not a TLD X links: counted as text


def test_a_short_text_is_one_part_and_a_long_one_a_thread_within_280() -> None:
    assert split_text("  Small teams ship weekly.  ") == ["Small teams ship weekly."]
    sentence = "Small teams ship weekly because feedback beats a long plan."
    text = " ".join([sentence] * 12)
    parts = split_text(text)
    assert len(parts) == 3
    assert all(weighted_length(part) <= MAX_WEIGHTED for part in parts)
    assert all(part.endswith(".") for part in parts)  # cut at sentence ends
    assert " ".join(parts) == text


def test_paragraphs_are_kept_whole_when_they_fit() -> None:
    first, second = "a" * 200, "b" * 200
    assert split_text(f"{first}\n\n{second}") == [first, second]


def test_cjk_weighs_double_so_a_thread_cuts_at_140_of_them() -> None:
    parts = split_text("的" * 300)
    assert [len(part) for part in parts] == [140, 140, 20]


def test_a_url_is_never_cut_and_counts_23_in_its_part() -> None:
    url = "https://example.com/" + "x" * 400
    parts = split_text("word " * 50 + url + " tail" * 20)
    assert any(url in part for part in parts)
    assert all(weighted_length(part) <= MAX_WEIGHTED for part in parts)


def test_numbered_parts_fit_with_their_marker() -> None:
    text = " ".join(["Feedback beats a long plan, every single week of the year."] * 20)
    parts = split_text(text, number_parts=True)
    total = len(parts)
    assert total > 3
    for index, part in enumerate(parts, start=1):
        assert part.endswith(f" {index}/{total}")
        assert weighted_length(part) <= MAX_WEIGHTED


def test_a_word_heavier_than_a_post_is_cut_between_graphemes() -> None:
    parts = split_text(FAMILY * 200)
    assert [weighted_length(part) for part in parts] == [280, 120]
    assert "".join(parts) == FAMILY * 200


def test_invalid_characters_and_empty_texts_are_refused() -> None:
    with pytest.raises(PublishError, match="U\\+FFFE"):
        split_text("hello \ufffe")
    with pytest.raises(PublishError, match="no text"):
        unconnected_parts("   ", False)


def test_unconnected_parts_and_connect_command() -> None:
    parts = unconnected_parts(" ".join(["Ship weekly, learn weekly."] * 20), True)
    assert len(parts) == 2
    (_, first), (_, second) = parts
    assert first == {"weightedLength": weighted_length(parts[0][0]), "limit": 280}
    assert second["inReplyTo"] == "part 1"
    assert connect_command("@ada").startswith("socialgen accounts add x")
