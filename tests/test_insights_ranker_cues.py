"""The readable cues the draft ranker reads beyond the hand features: each one's value
on texts a person can check, and the ranker's shortcut giving exactly what
bench/ranker_study.py measured."""

from __future__ import annotations

import math

import pytest

from socialgen.insights.ranker_features import HAND_FEATURES, PostText, readable_matrix
from socialgen.insights.text_cues import CUES, RANKER_CUES, cues, ranker_cues

TEXTS = (
    "NEVER ship on a Friday. Ever.",
    "@alice thanks for the review of the API docs!",
    ".@bob said it first",
    "  @carol, see https://example.com/SOME/PATH",
    "3 things I learned:\n\n1. Ship SMALL.\n2. Ask early...\n3. Write it down 🧵",
    'Über-Schnell: "DAS ist es" sagt sie?! Ja.',
    "",
)


def cue(text: str, name: str) -> float:
    return cues(text)[CUES.index(name)]


def test_each_cue_reads_what_it_says() -> None:
    assert cue(TEXTS[0], "capitalised words") == 1  # NEVER; "I"-like single letters do not count
    assert cue(TEXTS[0], "log words per sentence") == pytest.approx(math.log1p(6 / 2))
    assert [cue(text, "opens with a mention") for text in TEXTS[:4]] == [0, 1, 1, 1]
    # Capitals inside a link are not shouting.
    assert cue(TEXTS[3], "capitalised words") == 0
    assert cue(TEXTS[3], "ends with a link") == 1
    assert cue(TEXTS[4], "blank lines") == 1
    assert cue(TEXTS[4], "figures") == 4  # 3, 1, 2, 3
    assert cue(TEXTS[4], "colon in the hook") == 1
    assert cue(TEXTS[4], "ellipsis") == 1
    assert cue(TEXTS[4], "thread marker") == 1
    assert cue(TEXTS[5], "capitalised words") == 1  # DAS (Über is not all capitals)
    assert cue(TEXTS[5], "quotes") == 1
    assert cue(TEXTS[5], "repeated ! or ?") == 1
    assert cues("") == (0.0,) * len(CUES)


@pytest.mark.parametrize("text", TEXTS)
def test_the_ranker_reads_the_cues_the_study_measured(text: str) -> None:
    assert ranker_cues(text) == tuple(cue(text, name) for name in RANKER_CUES)


def test_the_ranker_matrix_is_the_hand_features_then_the_kept_cues() -> None:
    posts = [PostText(text, has_media=False) for text in TEXTS]

    matrix = readable_matrix(posts)

    assert matrix.shape == (len(TEXTS), len(HAND_FEATURES) + len(RANKER_CUES))
    assert matrix[1, len(HAND_FEATURES) + RANKER_CUES.index("opens with a mention")] == 1
    assert matrix[0, len(HAND_FEATURES) + RANKER_CUES.index("capitalised words")] == 1
