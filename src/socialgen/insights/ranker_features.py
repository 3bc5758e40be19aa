"""What the draft ranker sees of a post: the hand-made features a person can read
(`text_features.describe`: hook kind, length, links, hashtags ...; media; then the
`text_cues` kept for the ranker: words in capitals, words per sentence, an opening
@mention) and, where they help, word and character n-grams (TF-IDF), in one sparse
matrix.

The pieces used are a `FeatureSet`; the ranker picks the set that orders a time-ordered
validation split best, so n-grams are used only where the creator's history shows
they help.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from socialgen.insights.text_cues import RANKER_CUES, ranker_cues
from socialgen.insights.text_features import describe, hook_of

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# "hand": every readable column (`readable_matrix`: HAND_FEATURES and RANKER_CUES).
FeatureSet = Literal["hand", "hand+words", "hand+words+chars"]
FEATURE_SETS: tuple[FeatureSet, ...] = ("hand", "hand+words", "hand+words+chars")
HAND_FEATURES = (
    "question hook",
    "number hook",
    "statement hook",
    "log characters",
    "log words",
    "lines",
    "links",
    "hashtags",
    "mentions",
    "emoji",
    "exclamations",
    "questions",
    "media",
)
# The n-grams weigh less than the hand features, whose columns are standardised:
# thousands of sparse columns would otherwise drown a dozen readable ones.
NGRAM_WEIGHT = 0.5


@dataclass(frozen=True)
class PostText:
    """What a post (published or draft) is, as far as the ranker can tell."""

    content: str
    has_media: bool


def hand_matrix(posts: Sequence[PostText]) -> NDArray[np.float64]:
    """One row of HAND_FEATURES per post; counts on a log scale (one emoji more matters
    when there were none, not when there were twenty)."""
    import numpy as np

    rows = []
    for post in posts:
        found = describe(post.content)
        rows.append(
            (
                found.hook == "question",
                found.hook == "number",
                found.hook == "statement",
                found.characters,
                found.words,
                found.lines,
                found.links,
                found.hashtags,
                found.mentions,
                found.emoji,
                found.exclamations,
                found.questions,
                post.has_media,
            )
        )
    matrix = np.array(rows, dtype=np.float64).reshape(len(rows), len(HAND_FEATURES))
    matrix[:, 3:12] = np.log1p(matrix[:, 3:12])
    return matrix


def readable_matrix(posts: Sequence[PostText]) -> NDArray[np.float64]:
    """What the ranker reads of each post: HAND_FEATURES, then RANKER_CUES."""
    import numpy as np

    hand = hand_matrix(posts)
    extra = np.array([ranker_cues(post.content) for post in posts], dtype=np.float64)
    extra = extra.reshape(len(posts), len(RANKER_CUES))
    return np.hstack([hand, extra])


class PostVectorizer:
    """Fitted once on a history's texts (no engagement: the vocabulary, the n-grams'
    IDF and the hand features' spread), then turns any posts into the blocks of
    columns; `rows()` joins the blocks of one feature set."""

    def __init__(self) -> None:
        self.mean: NDArray[np.float64] | None = None
        self.scale: NDArray[np.float64] | None = None
        self.words: Any = None
        self.hooks: Any = None

    def fit_blocks(
        self, hand: NDArray[np.float64], texts: Sequence[str], *, ngrams: bool
    ) -> dict[str, Any]:
        """Fit, and the history's own blocks (each text read once). Without `ngrams`
        the "words" and "chars" blocks have no columns."""
        from scipy import sparse
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.mean = hand.mean(axis=0)
        spread = hand.std(axis=0)
        self.scale = spread + (spread == 0)  # a constant column stays 0, not NaN
        if not ngrams:
            self.words = self.hooks = _Nothing()
            nothing = self.words.transform(list(texts))
            return {
                "hand": sparse.csr_matrix((hand - self.mean) / self.scale),
                "words": nothing,
                "chars": nothing,
            }
        words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=5000, sublinear_tf=True)
        self.words, word_block = _fitted(words, list(texts))
        # Character n-grams of the hook only: the opening is what a reader sees in
        # the feed, and the whole text would cost ten times as much.
        hooks = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), min_df=3, max_features=5000,
            sublinear_tf=True,
        )  # fmt: skip
        self.hooks, hook_block = _fitted(hooks, [hook_of(text) for text in texts])
        return {
            "hand": sparse.csr_matrix((hand - self.mean) / self.scale),
            "words": word_block * NGRAM_WEIGHT,
            "chars": hook_block * NGRAM_WEIGHT,
        }

    def blocks(self, hand: NDArray[np.float64], texts: Sequence[str]) -> dict[str, Any]:
        """ "hand", "words" and "chars": scipy CSR matrices, one row per post."""
        from scipy import sparse

        assert self.mean is not None and self.scale is not None, "fit() first"
        return {
            "hand": sparse.csr_matrix((hand - self.mean) / self.scale),
            "words": self.words.transform(list(texts)) * NGRAM_WEIGHT,
            "chars": self.hooks.transform([hook_of(text) for text in texts]) * NGRAM_WEIGHT,
        }


def rows(blocks: dict[str, Any], feature_set: FeatureSet) -> Any:
    """The columns of `feature_set`, side by side (CSR)."""
    from scipy import sparse

    return sparse.hstack([blocks[name] for name in feature_set.split("+")], format="csr")


def _fitted(vectorizer: Any, texts: list[str]) -> tuple[Any, Any]:
    """The fitted vectorizer and the texts' rows; a history too small or too uniform
    for any n-gram to reach min_df gives an empty vocabulary, which sklearn refuses:
    the block then has no columns."""
    try:
        return vectorizer, vectorizer.fit_transform(texts)
    except ValueError:
        nothing = _Nothing()
        return nothing, nothing.transform(texts)


class _Nothing:
    """A block with no columns."""

    def transform(self, texts: list[str]) -> Any:
        from scipy import sparse

        return sparse.csr_matrix((len(texts), 0))
