"""Which of several drafts is likely to do better, learnt from the creator's own history.

A linear model over the features of a post (`ranker_model`): each post's log engagement
(log1p of likes + reposts + comments) against the posts published within a week of it,
blended with whether it beat the creator's median. It is judged the way it is used, on
pairs of posts published within a week of each other (Tan, Lee and Pang, ACL 2014: the
account's growth does not decide which of two close posts did better), and everything
is chosen and measured forwards in time, never on a random split (that would leak the
future):

- held out: the newest HELD_OUT_SHARE of the posts. The model trained on the older
  ones orders the held-out pairs; that share of correctly ordered pairs is
  `heldOutAccuracy` (0.5 is chance), with the lower end of its 90% interval.
- model choice (regularisation C, and whether word/character n-grams help): on the
  newest part of the training posts, by a model trained on the part before it.
- the model that scores drafts is then trained on every post with that choice.

`confident` needs MIN_HELD_OUT_PAIRS held-out pairs and the interval's lower end above
0.5. With little history the ranker still answers, with `confident` false: the model
it could fit, or 0.5 for every draft when there is nothing to learn from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import (
    PAIR_WINDOW_DAYS,
    PairAccuracy,
    Pairs,
    close_pairs,
    ordered_share,
    pair_accuracy,
)
from socialgen.insights.ranker_features import (
    FEATURE_SETS,
    FeatureSet,
    PostText,
    PostVectorizer,
    readable_matrix,
    rows,
)
from socialgen.insights.ranker_model import blend_weights, local_median

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

HELD_OUT_SHARE = 0.2
MIN_HELD_OUT_PAIRS = 30
MIN_TRAINING_PAIRS = 10  # fewer: no model at all, every draft scores 0.5
MIN_CHOICE_PAIRS = 30  # fewer validation pairs: no choice, the default below
DEFAULT_CHOICE: tuple[FeatureSet, float] = ("hand", 0.1)
C_GRID = (0.1, 1.0)  # the logistic view's regularisation; the two validated alike
TRAINING_PAIRS = 8000  # close pairs that scale scores into log-odds: a sample is enough
EVALUATION_PAIRS = 20000
CHOICE_POSTS = 4000
CHOICE_PAIRS = 4000
TRAINING_WINDOW_DAYS = PAIR_WINDOW_DAYS  # learnt from the same kind of pairs it is judged on
BASELINE_POSTS = 50  # a draft is compared with the creator's latest posts


@dataclass(frozen=True)
class _Model:
    vectorizer: PostVectorizer
    feature_set: FeatureSet
    weights: NDArray[np.float64]

    def scores(self, drafts: Sequence[PostText]) -> NDArray[np.float64]:
        blocks = self.vectorizer.blocks(
            readable_matrix(drafts), [draft.content for draft in drafts]
        )
        return rows(blocks, self.feature_set) @ self.weights  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Ranker:
    """Trained on `posts` published posts. `score()` gives each draft the chance it
    beats the creator's typical recent post (0.5 when there is nothing to go on)."""

    posts: int
    held_out: PairAccuracy | None
    model: _Model | None
    reference: float  # the model's mean score over the latest posts

    @property
    def confident(self) -> bool:
        held = self.held_out
        return held is not None and held.pairs >= MIN_HELD_OUT_PAIRS and held.low > 0.5

    @property
    def held_out_accuracy(self) -> float | None:
        return None if self.held_out is None else self.held_out.accuracy

    @property
    def held_out_pairs(self) -> int:
        return 0 if self.held_out is None else self.held_out.pairs

    def score(self, drafts: Sequence[PostText]) -> list[float]:
        if self.model is None or not drafts:
            return [0.5] * len(drafts)
        return [_sigmoid(float(value) - self.reference) for value in self.model.scores(drafts)]


def train_ranker(history: Sequence[PublishedPost], *, seed: int = 0) -> Ranker:
    """`history` oldest first (as `history.load_published` gives it)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    if len(history) < 2:
        return Ranker(posts=len(history), held_out=None, model=None, reference=0.0)
    hand = readable_matrix([PostText(post.content, post.has_media) for post in history])
    texts = [post.content for post in history]
    times = np.array([post.published_at.timestamp() for post in history], dtype=np.float64)
    target = np.log1p(np.array([post.engagement for post in history], dtype=np.float64))
    cut = len(history) - math.ceil(len(history) * HELD_OUT_SHARE)
    choice = _choose(hand[:cut], texts[:cut], times[:cut], target[:cut], rng)
    if choice is None:
        return Ranker(posts=len(history), held_out=None, model=None, reference=0.0)
    # The vocabulary, IDF and spreads come from every text (no engagement is read);
    # the weights only ever from the pairs of the posts a model is trained on. The
    # n-grams (most of the cost on a long history) only when they were chosen.
    vectorizer = PostVectorizer()
    blocks = vectorizer.fit_blocks(hand, texts, ngrams=choice[0] != "hand")
    everything = _Span(blocks, times, target)
    training, newest = everything.split()
    feature_set, c = choice
    held_out = None
    weights = _fit(training, feature_set, c, rng)
    if weights is not None:
        held_out = pair_accuracy(
            newest.rows(feature_set) @ weights,
            newest.pairs(rng, EVALUATION_PAIRS),
            n_posts=len(newest),
            rng=rng,
        )
    weights = _fit(everything, feature_set, c, rng)
    if weights is None:
        return Ranker(posts=len(history), held_out=held_out, model=None, reference=0.0)
    latest = everything.part(len(everything) - BASELINE_POSTS, len(everything))
    return Ranker(
        posts=len(history),
        held_out=held_out,
        model=_Model(vectorizer, feature_set, weights),
        reference=float(np.mean(latest.rows(feature_set) @ weights)),
    )


@dataclass(frozen=True)
class _Span:
    """Consecutive posts of the history (oldest first): their feature blocks, times
    and log engagement."""

    blocks: dict[str, Any]
    times: NDArray[np.float64]
    target: NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.times)

    @cached_property
    def relative(self) -> NDArray[np.float64]:
        """Each post's log engagement against the posts of its week (computed once: the
        model choice fits several models on the same span)."""
        return self.target - local_median(self.times, self.target)

    def rows(self, feature_set: FeatureSet) -> Any:
        return rows(self.blocks, feature_set)

    def pairs(
        self, rng: np.random.Generator, cap: int, window_days: float = PAIR_WINDOW_DAYS
    ) -> Pairs:
        return close_pairs(self.times, self.target, cap=cap, rng=rng, window_days=window_days)

    def part(self, start: int, end: int) -> _Span:
        start = max(0, start)
        return _Span(
            {name: block[start:end] for name, block in self.blocks.items()},
            self.times[start:end],
            self.target[start:end],
        )

    def split(self) -> tuple[_Span, _Span]:
        """(older, the newest HELD_OUT_SHARE)."""
        cut = len(self) - math.ceil(len(self) * HELD_OUT_SHARE)
        return self.part(0, cut), self.part(cut, len(self))


def _choose(
    hand: NDArray[np.float64],
    texts: list[str],
    times: NDArray[np.float64],
    target: NDArray[np.float64],
    rng: np.random.Generator,
) -> tuple[FeatureSet, float] | None:
    """The feature set and C that order the newest training posts best when learnt
    from the ones before (the simpler choice on a tie); only the latest CHOICE_POSTS
    take part, which keeps a long history fast. None: too little to learn from."""
    if len(close_pairs(times, target, cap=10 * MIN_TRAINING_PAIRS, rng=rng)) < MIN_TRAINING_PAIRS:
        return None
    start = max(0, len(texts) - CHOICE_POSTS)
    blocks = PostVectorizer().fit_blocks(hand[start:], texts[start:], ngrams=True)
    earlier, later = _Span(blocks, times[start:], target[start:]).split()
    validation = later.pairs(rng, EVALUATION_PAIRS)
    pairs = earlier.pairs(rng, CHOICE_PAIRS, TRAINING_WINDOW_DAYS)
    if len(validation) < MIN_CHOICE_PAIRS or len(pairs) < MIN_TRAINING_PAIRS:
        return DEFAULT_CHOICE
    richer_margin = 0.5 / math.sqrt(len(later))
    best: tuple[float, FeatureSet, float] | None = None
    for feature_set in FEATURE_SETS:  # simplest first
        earlier_rows, later_rows = earlier.rows(feature_set), later.rows(feature_set)
        # n-grams must earn their thousands of columns: a richer set replaces a simpler
        # one only when it does better by more than the validation accuracy's standard
        # error (the one-standard-error rule; about 0.5 / sqrt(posts) with pairs that
        # share posts), so noise in a small validation split does not pick them.
        margin = 0.0 if best is None or best[1] == feature_set else richer_margin
        for c in C_GRID:
            weights = blend_weights(earlier_rows, earlier.target, earlier.relative, pairs, c, rng)
            accuracy = ordered_share(later_rows @ weights, validation)
            if best is None or accuracy > best[0] + margin + 1e-9:
                best = (accuracy, feature_set, c)
    assert best is not None
    return best[1], best[2]


def _fit(
    span: _Span, feature_set: FeatureSet, c: float, rng: np.random.Generator
) -> NDArray[np.float64] | None:
    """The model's weights on `span`'s posts; None when they make too few close pairs
    to learn anything from."""
    pairs = span.pairs(rng, TRAINING_PAIRS, TRAINING_WINDOW_DAYS)
    if len(pairs) < MIN_TRAINING_PAIRS:
        return None
    return blend_weights(span.rows(feature_set), span.target, span.relative, pairs, c, rng)


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, value))))
