"""How the draft ranker's design was chosen: candidate models compared on validation
folds inside the OLDER 80% of each history only (the newest 20%, on which
bench/insights.py reports the held-out figure, is never read here).

    .venv/bin/python bench/ranker_study.py --tweets PATH/tweets.js [--tweets ...]

Two time-ordered folds per history (shares of all its posts): trained on [0, 0.48),
validated on [0.48, 0.64); trained on [0, 0.64), validated on [0.64, 0.80). Each
candidate's share of correctly ordered validation pairs (published within 7 days of
each other), both folds pooled; a candidate is kept only if it beats the ranker of
the time on at least 3 of the 4 real histories ("wins" counts them against the first
row, the ranker as shipped). The synthetic creator is a sanity check, not a judge.

What it found (docs/insights.md, "What was tried for the ranker"): three readable cues
(words in capitals, words per sentence, an opening @mention) each passed the rule and
are in the ranker; the other cues, time of day as a control, recency weighting,
pairwise logistic and gradient boosting on pair differences, word TF-IDF ridge and the
ensembles did not. Every gain is a point or two on a few hundred pairs: noise-sized.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
import harness  # noqa: F401
from tests.insights_synthetic import synthetic_history

# isort: on

from insights_data import read_tweets_js
from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import Pairs, close_pairs, ordered_share
from socialgen.insights.ranker import train_ranker
from socialgen.insights.ranker_features import PostText, hand_matrix
from socialgen.insights.ranker_model import blend_weights, local_median
from socialgen.insights.text_cues import CUES, cues

FOLDS = ((0.48, 0.64), (0.64, 0.80))
Scorer = Callable[[list[PublishedPost]], np.ndarray]
Fitter = Callable[[list[PublishedPost]], Scorer]  # training posts -> their scorer


def _target(posts: list[PublishedPost]) -> np.ndarray:
    return np.log1p(np.array([p.engagement for p in posts], dtype=np.float64))


def _times(posts: list[PublishedPost]) -> np.ndarray:
    return np.array([p.published_at.timestamp() for p in posts], dtype=np.float64)


def _hand(posts: list[PublishedPost]) -> np.ndarray:
    return hand_matrix([PostText(p.content, p.has_media) for p in posts])


def _cues(posts: list[PublishedPost]) -> np.ndarray:
    return np.array([cues(p.content) for p in posts], dtype=np.float64).reshape(len(posts), -1)


def _clock(posts: list[PublishedPost]) -> np.ndarray:
    hours = np.array([p.published_at.hour + p.published_at.minute / 60 for p in posts])
    weekend = np.array([p.published_at.weekday() >= 5 for p in posts], dtype=np.float64)
    angle = 2 * math.pi * hours / 24
    return np.column_stack([np.sin(angle), np.cos(angle), weekend])


class Std:
    def __init__(self, matrix: np.ndarray) -> None:
        self.mean: np.ndarray = matrix.mean(axis=0)
        spread: np.ndarray = matrix.std(axis=0)
        self.scale: np.ndarray = spread + (spread == 0)

    def __call__(self, matrix: np.ndarray) -> np.ndarray:
        scaled: np.ndarray = (matrix - self.mean) / self.scale
        return scaled


def features(kind: str) -> Callable[[list[PublishedPost]], np.ndarray]:
    pick = [int(i) for i in re.findall(r"cue(\d+)", kind)]

    def build(posts: list[PublishedPost]) -> np.ndarray:
        parts = [_hand(posts)]
        if "cues" in kind:
            parts.append(_cues(posts))
        elif pick:
            parts.append(_cues(posts)[:, pick])
        if "clock" in kind:
            parts.append(_clock(posts))
        return np.hstack(parts)

    return build


def _pairs(posts: list[PublishedPost], rng: np.random.Generator, cap: int = 8000) -> Pairs:
    return close_pairs(_times(posts), _target(posts), cap=cap, rng=rng)


def current(train: list[PublishedPost]) -> Scorer:
    ranker = train_ranker(train)
    return lambda posts: np.array(ranker.score([PostText(p.content, p.has_media) for p in posts]))


def plain(train: list[PublishedPost]) -> Scorer:
    from sklearn.linear_model import LogisticRegression

    x = _hand(train)
    std = Std(x)
    target = _target(train)
    model = LogisticRegression(C=1.0, max_iter=1000).fit(std(x), target > np.median(target))
    return lambda posts: model.decision_function(std(_hand(posts)))


def blend(
    kind: str,
    half_life: float | None = None,
    clock_control: bool = False,
    alpha: float = 30.0,
    c: float = 0.1,
) -> Fitter:
    build = features(kind + ("+clock" if clock_control else ""))
    width_clock = 3 if clock_control else 0

    def fit(train: list[PublishedPost]) -> Scorer:
        from scipy import sparse

        rng = np.random.default_rng(0)
        x = build(train)
        std = Std(x)
        times, target = _times(train), _target(train)
        relative = target - local_median(times, target)
        weights_rows = None
        if half_life is not None or alpha != 30.0 or c != 0.1:
            weights_rows = np.ones(len(times))
        if half_life is not None:
            age_days = (times[-1] - times) / 86400
            weights_rows = 0.5 ** (age_days / half_life)
        w = _blend(
            sparse.csr_matrix(std(x)),
            target,
            relative,
            _pairs(train, rng),
            rng,
            weights_rows,
            alpha,
            c,
        )
        if width_clock:
            w = w.copy()
            w[-width_clock:] = 0  # scored as if posted at the same time
        return lambda posts: std(build(posts)) @ w

    return fit


def _blend(
    rows: Any,
    target: np.ndarray,
    relative: np.ndarray,
    pairs: Pairs,
    rng: np.random.Generator,
    sample_weight: np.ndarray | None,
    alpha: float = 30.0,
    c: float = 0.1,
) -> np.ndarray:
    if sample_weight is None:
        return blend_weights(rows, target, relative, pairs, 0.1, rng)
    from sklearn.linear_model import LogisticRegression, Ridge

    w = np.zeros(rows.shape[1])
    r = Ridge(alpha=alpha).fit(rows, relative, sample_weight=sample_weight).coef_
    w += r / max((rows @ r).std(), 1e-12)
    above = target > np.median(target)
    lr = LogisticRegression(C=c, solver="liblinear").fit(rows, above, sample_weight=sample_weight)
    w += lr.coef_[0] / max((rows @ lr.coef_[0]).std(), 1e-12)
    return w


def _diffs(x: np.ndarray, pairs: Pairs, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    d = x[pairs.newer] - x[pairs.older]
    flip = rng.random(len(pairs)) < 0.5
    return np.where(flip[:, None], -d, d), pairs.newer_won ^ flip


def pairwise(kind: str, c: float) -> Fitter:
    build = features(kind)

    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.linear_model import LogisticRegression

        rng = np.random.default_rng(0)
        x = build(train)
        std = Std(x)
        d, y = _diffs(std(x), _pairs(train, rng), rng)
        model = LogisticRegression(C=c, fit_intercept=False, max_iter=1000).fit(d, y)
        w = model.coef_[0]
        return lambda posts: std(build(posts)) @ w

    return fit


def boosted(kind: str) -> Fitter:
    build = features(kind)

    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.ensemble import HistGradientBoostingRegressor

        x = build(train)
        times, target = _times(train), _target(train)
        relative = target - local_median(times, target)
        model = HistGradientBoostingRegressor(
            max_iter=100,
            learning_rate=0.05,
            max_depth=3,
            min_samples_leaf=20,
            l2_regularization=1.0,
        ).fit(x, relative)
        return lambda posts: model.predict(build(posts))

    return fit


def boosted_pairs(kind: str) -> Fitter:
    """A classifier of "newer won" on feature differences; a post's score is its
    average win chance against the training posts' mean row (antisymmetric enough
    to order, and what a draft can be given without a partner)."""
    build = features(kind)

    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.ensemble import HistGradientBoostingClassifier

        rng = np.random.default_rng(0)
        x = build(train)
        d, y = _diffs(x, _pairs(train, rng), rng)
        model = HistGradientBoostingClassifier(
            max_iter=100,
            learning_rate=0.05,
            max_depth=3,
            min_samples_leaf=20,
            l2_regularization=1.0,
        ).fit(d, y)
        centre = x.mean(axis=0)
        return lambda posts: model.predict_proba(build(posts) - centre)[:, 1]

    return fit


def words_ridge(alpha: float) -> Fitter:
    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import Ridge

        vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=5000, sublinear_tf=True)
        x = vec.fit_transform([p.content for p in train])
        times, target = _times(train), _target(train)
        relative = target - local_median(times, target)
        model = Ridge(alpha=alpha).fit(x, relative)
        return lambda posts: model.predict(vec.transform([p.content for p in posts]))

    return fit


def ensemble(*parts: Fitter) -> Fitter:
    def fit(train: list[PublishedPost]) -> Scorer:
        scorers = [part(train) for part in parts]
        spreads = [max(float(np.std(s(train))), 1e-12) for s in scorers]

        def score(posts: list[PublishedPost]) -> np.ndarray:
            total = np.zeros(len(posts))
            for s, sp in zip(scorers, spreads, strict=True):
                total = total + s(posts) / sp
            return total

        return score

    return fit


CANDIDATES: dict[str, Fitter] = {
    "ranker as shipped (train_ranker)": current,
    "plain logistic, 13 hand features": plain,
    "blend, hand (the previous ranker's core)": blend("hand"),
    **{f"blend, hand + {name}": blend(f"hand+cue{i}") for i, name in enumerate(CUES)},
    "blend, hand + all 13 cues": blend("hand+cues"),
    "blend, hand + cues 3, 5, 6 (kept)": blend("hand+cue3+cue5+cue6"),
    "blend, hand + cues 3, 4, 5, 6": blend("hand+cue3+cue4+cue5+cue6"),
    "blend, hand + cues, ridge 300, C 0.01": blend("hand+cues", alpha=300.0, c=0.01),
    "blend, hand, ridge 100, C 0.03": blend("hand", alpha=100.0, c=0.03),
    "blend, hand, ridge 10, C 0.3": blend("hand", alpha=10.0, c=0.3),
    "blend, hand + cues, clock as control": blend("hand+cues", clock_control=True),
    "blend, hand, recency half-life 730 d": blend("hand", half_life=730),
    "blend, hand, recency half-life 365 d": blend("hand", half_life=365),
    "blend, hand + cues, half-life 365 d": blend("hand+cues", half_life=365),
    "blend, hand + cues, half-life 120 d": blend("hand+cues", half_life=120),
    "pairwise logistic on differences, C 0.01": pairwise("hand+cues", 0.01),
    "pairwise logistic on differences, C 1": pairwise("hand+cues", 1.0),
    "gradient boosting, week-relative target": boosted("hand+cues"),
    "gradient boosting on pair differences": boosted_pairs("hand+cues"),
    "ridge on word 1-2-gram TF-IDF, alpha 3": words_ridge(3.0),
    "ridge on word 1-2-gram TF-IDF, alpha 30": words_ridge(30.0),
    "ensemble: blend + boosting": ensemble(blend("hand+cues"), boosted("hand+cues")),
    "ensemble: blend + words": ensemble(blend("hand+cues"), words_ridge(3.0)),
    "ensemble: blend + boosting + words": ensemble(
        blend("hand+cues"), boosted("hand+cues"), words_ridge(3.0)
    ),
}


def validate(posts: list[PublishedPost], fit: Fitter) -> tuple[float, int]:
    right, total = 0.0, 0
    for start, end in FOLDS:
        a, b = int(len(posts) * start), int(len(posts) * end)
        train, val = posts[:a], posts[a:b]
        pairs = close_pairs(_times(val), _target(val), cap=20000, rng=np.random.default_rng(1))
        if len(pairs) == 0:
            continue
        scores = fit(train)(val)
        right += ordered_share(scores, pairs) * len(pairs)
        total += len(pairs)
    return (right / total if total else 0.5), total


def validate_pairs(posts: list[PublishedPost]) -> int:
    total = 0
    for start, end in FOLDS:
        val = posts[int(len(posts) * start) : int(len(posts) * end)]
        total += len(
            close_pairs(_times(val), _target(val), cap=20000, rng=np.random.default_rng(1))
        )
    return total


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tweets", type=Path, action="append", default=[])
    parser.add_argument("--only", action="append", default=[])
    options = parser.parse_args()
    histories = {p.name.split("+")[0].split(".")[0]: read_tweets_js(p) for p in options.tweets}
    histories["synthetic"] = synthetic_history(1000, seed=21, span_days=365)
    names = [n for n in CANDIDATES if not options.only or any(o in n for o in options.only)]
    print(f"{'candidate':44}" + "".join(f"{h[:10]:>12}" for h in histories) + "   mean4  wins")
    base: dict[str, float] = {}
    for name in names:
        accs = []
        for history, posts in histories.items():
            acc, _ = validate(posts, CANDIDATES[name])
            accs.append(acc)
            if name == names[0]:
                base[history] = acc
        real = accs[:-1]
        if name == names[0]:
            print("pairs", [validate_pairs(p) for p in histories.values()])
        wins = sum(a > base.get(h, 1) + 1e-9 for a, h in zip(real, histories, strict=False))
        print(
            f"{name:44}"
            + "".join(f"{a:12.3f}" for a in accs)
            + f"  {np.mean(real) if real else 0:.3f}   {wins}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
