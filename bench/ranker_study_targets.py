"""Second round of the draft ranker's design study (issue 26): what each view of the
blend learns from, length buckets, a reposted-tweet cue, regularisation chosen by an
inner time-ordered split, and time of day as a diagnostic. Candidates are compared on
the validation folds of bench/ranker_study.py (inside each history's OLDER 80% only);
`--held-out` then reads the newest 20% once, for the candidates named with --only,
with the 95% bootstrap interval over posts of bench/insights.py.

    .venv/bin/python bench/ranker_study_targets.py --tweets A.js [--tweets ...] [--held-out]
    .venv/bin/python bench/ranker_study_targets.py --tweets A.js --diagnose

`--diagnose` describes each history's held-out pairs without any model: how many posts
and pairs, how many of the pairs are "nothing against something", how many distinct
weeks they come from, and the accuracy a model that knew every post's true expected
engagement could reach when the counts are Poisson around it (the noise ceiling), how
the blend does on each kind of pair and in the busiest weeks, and which features
changed sides over the training posts (drift).

What it found (docs/insights.md has both tables): no candidate beat the shipped ranker
on 3 of the 4 archives on validation; every difference, on validation and held out, is
a point or two, inside the noise. The ranker was left as it was.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
import harness  # noqa: F401
from tests.insights_synthetic import synthetic_history

# isort: on

from insights import interval, pair_weights, right_per_pair
from insights_data import read_tweets_js
from ranker_study import FOLDS, Std, _target, _times, current, plain
from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import close_pairs, ordered_share
from socialgen.insights.ranker import HELD_OUT_SHARE
from socialgen.insights.ranker_features import PostText, readable_matrix
from socialgen.insights.ranker_model import local_median

Scorer = Callable[[list[PublishedPost]], np.ndarray]
WEEK = 7 * 86400.0


def _readable(posts: list[PublishedPost]) -> np.ndarray:
    return readable_matrix([PostText(p.content, p.has_media) for p in posts])


def win_rate(times: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each post's share of the posts within a week either side that it beat (a tie
    counts half; 0.5 with no neighbour), and how many neighbours it has: the pairs
    the ranker is judged on, summed per post."""
    starts = np.searchsorted(times, times - WEEK, side="left")
    ends = np.searchsorted(times, times + WEEK, side="right")
    rate, count = np.full(len(times), 0.5), np.zeros(len(times))
    for i, (a, b) in enumerate(zip(starts, ends, strict=True)):
        others = np.delete(target[a:b], i - a)
        if len(others):
            rate[i] = (np.sum(target[i] > others) + 0.5 * np.sum(target[i] == others)) / len(others)
            count[i] = len(others)
    return rate, count


def _unit(rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    spread = float((rows @ w).std())
    return w / spread if spread > 0 else w


def _length_buckets(train_chars: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """One-hot of the author's own length quartiles (cut points from training posts)."""
    cuts = np.quantile(train_chars, [0.25, 0.5, 0.75])
    return lambda chars: np.column_stack([chars <= cuts[0], chars > cuts[2], chars > cuts[1]])


def _extras(
    posts: list[PublishedPost], kinds: str, cut: Callable[[np.ndarray], np.ndarray] | None
) -> list[np.ndarray]:
    parts = []
    chars = np.array([len(p.content.strip()) for p in posts], dtype=np.float64)
    if "len4" in kinds and cut is not None:
        parts.append(cut(chars).astype(np.float64))
    if "clock" in kinds:
        hours = np.array([p.published_at.hour + p.published_at.minute / 60 for p in posts])
        angle = 2 * math.pi * hours / 24
        weekend = np.array([p.published_at.weekday() >= 5 for p in posts], dtype=np.float64)
        parts.append(np.column_stack([np.sin(angle), np.cos(angle), weekend]))
    return parts


def model(
    views: str = "ridge+logistic",
    kinds: str = "",
    alpha: float = 30.0,
    c: float = 0.1,
    weigh: bool = False,
    half_life_posts: float | None = None,
    window_days: float = 7.0,
) -> Callable[[list[PublishedPost]], Scorer]:
    """A linear blend of `views` (each scaled to unit spread, then added):
    ridge: log engagement minus the week's median (the shipped view);
    logistic: above the median of all training posts (the shipped view);
    local: above the week's median (a logistic view that growth cannot decide);
    winrate: ridge on the share of the week's posts it beat (`weigh`: each post
    weighs its number of neighbours, as in the pairs the ranker is judged on).
    `half_life_posts`: a training post weighs half as much every that many posts back
    (by posts, not days: an author who slowed down keeps enough weight on the latest).
    `window_days`: the ridge view's "its week" (a post's neighbours either side)."""

    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.linear_model import LogisticRegression, Ridge

        chars = np.array([len(p.content.strip()) for p in train], dtype=np.float64)
        cut = _length_buckets(chars)

        def build(posts: list[PublishedPost]) -> np.ndarray:
            return np.hstack([_readable(posts), *_extras(posts, kinds, cut)])

        x = build(train)
        std = Std(x)
        rows = std(x)
        times, target = _times(train), _target(train)
        relative = target - _local_median(times, target, window_days)
        w = np.zeros(rows.shape[1])
        recency = None
        if half_life_posts is not None:
            recency = 0.5 ** (np.arange(len(train))[::-1] / half_life_posts)
        for view in views.split("+"):
            if view == "ridge" and np.any(relative != 0):
                ridge = Ridge(alpha=alpha).fit(rows, relative, sample_weight=recency)
                w += _unit(rows, ridge.coef_)
            elif view in ("logistic", "local"):
                above = target > np.median(target) if view == "logistic" else relative > 0
                if above.any() and not above.all():
                    lr = LogisticRegression(C=c, solver="liblinear", tol=1e-3)
                    lr.fit(rows, above, sample_weight=recency)
                    w += _unit(rows, lr.coef_[0])
            elif view == "winrate":
                rate, count = win_rate(times, target)
                keep = count > 0
                if keep.sum() > 10:
                    sw = count[keep] if weigh else None
                    r = Ridge(alpha=alpha).fit(rows[keep], rate[keep], sample_weight=sw)
                    w += _unit(rows, r.coef_)
        return lambda posts: std(build(posts)) @ w

    return fit


def _local_median(times: np.ndarray, target: np.ndarray, days: float) -> np.ndarray:
    from socialgen.insights import ranker_model

    shipped = ranker_model.LOCAL_WINDOW_DAYS
    ranker_model.LOCAL_WINDOW_DAYS = days
    try:
        return local_median(times, target)
    finally:
        ranker_model.LOCAL_WINDOW_DAYS = shipped


Setting = tuple[float, float, float | None, float]  # alpha, C, half-life, window days


def tuned(
    views: str, kinds: str = "", grid: list[Setting] | None = None, share: float = 0.75
) -> Callable[[list[PublishedPost]], Scorer]:
    """`model(views)` with alpha, C (a recency half-life, the ridge view's window)
    chosen on an inner time-ordered split of the training posts (the newest
    1 - `share` judged by a model fit on the rest); ties go to the first of `grid`."""
    grid = grid or [(a, c, None, 7.0) for a in (30.0, 3.0, 300.0) for c in (0.1, 0.01, 1.0)]

    def fit(train: list[PublishedPost]) -> Scorer:
        cut = int(len(train) * share)
        inner, check = train[:cut], train[cut:]
        pairs = close_pairs(_times(check), _target(check), cap=20000, rng=np.random.default_rng(2))
        best = grid[0]
        if len(pairs) >= 30:
            scored = [ordered_share(_setting(views, kinds, g)(inner)(check), pairs) for g in grid]
            best = grid[int(np.argmax(scored))]
        return _setting(views, kinds, best)(train)

    return fit


def _setting(views: str, kinds: str, g: Setting) -> Callable[[list[PublishedPost]], Scorer]:
    return model(views, kinds, g[0], g[1], half_life_posts=g[2], window_days=g[3])


CANDIDATES: dict[str, Callable[[list[PublishedPost]], Scorer]] = {
    "ranker as shipped (train_ranker)": current,
    "plain logistic, 13 hand features": plain,
    "core blend, readable (ridge + logistic)": model(),
    "ridge + local logistic (above its week)": model("ridge+local"),
    "ridge + logistic + local": model("ridge+logistic+local"),
    "winrate ridge alone": model("winrate"),
    "winrate ridge, weighted by neighbours": model("winrate", weigh=True),
    "ridge + logistic + winrate": model("ridge+logistic+winrate"),
    "logistic + winrate (weighted)": model("logistic+winrate", weigh=True),
    "core + length quartiles": model(kinds="len4"),
    "core, ridge view against 1 day either side": model(window_days=1.0),
    "core, ridge view against 3 days either side": model(window_days=3.0),
    "core, ridge view against 14 days either side": model(window_days=14.0),
    "ridge view alone": model("ridge"),
    "logistic view alone": model("logistic"),
    "core, alpha/C by inner time split": tuned("ridge+logistic"),
    "core, recency half-life 300 posts": model(half_life_posts=300),
    "core, recency half-life 150 posts": model(half_life_posts=150),
    "core, half-life none/300/150 by inner split": tuned(
        "ridge+logistic",
        grid=[(30.0, 0.1, None, 7.0), (30.0, 0.1, 300, 7.0), (30.0, 0.1, 150, 7.0)],
    ),
    "core, window 7/3/1 days by inner split": tuned(
        "ridge+logistic",
        grid=[(30.0, 0.1, None, 7.0), (30.0, 0.1, None, 3.0), (30.0, 0.1, None, 1.0)],
    ),
    "core, window 7/3/1 days by inner split (newest half)": tuned(
        "ridge+logistic",
        grid=[(30.0, 0.1, None, 7.0), (30.0, 0.1, None, 3.0), (30.0, 0.1, None, 1.0)],
        share=0.5,
    ),
    "diagnostic, not a draft feature: core + clock": model(kinds="clock"),
}


def validate(posts: list[PublishedPost], fit: Callable[[list[PublishedPost]], Scorer]) -> float:
    right, total = 0.0, 0
    for start, end in FOLDS:
        a, b = int(len(posts) * start), int(len(posts) * end)
        train, val = posts[:a], posts[a:b]
        pairs = close_pairs(_times(val), _target(val), cap=20000, rng=np.random.default_rng(1))
        if len(pairs):
            right += ordered_share(fit(train)(val), pairs) * len(pairs)
            total += len(pairs)
    return right / total if total else 0.5


def held_out(
    posts: list[PublishedPost], fits: dict[str, Callable[[list[PublishedPost]], Scorer]]
) -> dict[str, str]:
    """Each candidate's held-out accuracy and 95% interval (bench/insights.py's pairs
    and bootstrap: the same seed, so the same pairs and rounds)."""
    rng = np.random.default_rng(0)
    cut = len(posts) - math.ceil(len(posts) * HELD_OUT_SHARE)
    older, newest = posts[:cut], posts[cut:]
    pairs = close_pairs(_times(newest), _target(newest), cap=20000, rng=rng)
    weights = pair_weights(pairs, len(newest), np.random.default_rng(7))
    out = {}
    for name, fit in fits.items():
        right = right_per_pair(fit(older)(newest), pairs)
        low, high = interval(weights, right)
        out[name] = f"{right.mean():.3f} ({low:.2f}-{high:.2f})"
    return out


def diagnose(name: str, posts: list[PublishedPost]) -> None:
    cut = len(posts) - math.ceil(len(posts) * HELD_OUT_SHARE)
    newest = posts[cut:]
    times, target = _times(newest), _target(newest)
    counts = np.array([p.engagement for p in newest])
    pairs = close_pairs(times, target, cap=20000, rng=np.random.default_rng(0))
    low_zero = (counts[pairs.older] == 0) | (counts[pairs.newer] == 0)
    one_vs_zero = np.minimum(counts[pairs.older], counts[pairs.newer]) == 0
    one_vs_zero &= np.maximum(counts[pairs.older], counts[pairs.newer]) == 1
    weeks = np.unique((times[pairs.older] // WEEK).astype(int))
    in_pairs = np.unique(np.concatenate([pairs.older, pairs.newer]))
    per_week = np.unique((times[pairs.older] // WEEK).astype(int), return_counts=True)[1]
    top4 = np.sort(per_week)[::-1][:4].sum() / max(1, len(pairs))
    # A score drawn at random per post (right or wrong together in all of a post's
    # pairs, as a model's errors are): its interval's width says how many independent
    # pairs the held-out pairs are worth.
    weights = pair_weights(pairs, len(newest), np.random.default_rng(7))
    widths = [
        np.subtract(*interval(weights, right_per_pair(rng_scores, pairs))[::-1])
        for rng_scores in np.random.default_rng(8).normal(size=(5, len(newest)))
    ]
    low, high = 0.5 - np.mean(widths) / 2, 0.5 + np.mean(widths) / 2
    n_eff = 0.25 / (np.mean(widths) / 3.92) ** 2
    print(
        f"{name}: {len(posts)} posts, held out {len(newest)} "
        f"({newest[0].published_at.date()} to {newest[-1].published_at.date()}), "
        f"zero engagement {np.mean(counts == 0):.0%}, posts in a pair {len(in_pairs)}"
    )
    print(
        f"  {len(pairs)} pairs (ties left out) from {len(weeks)} distinct weeks; "
        f"{low_zero.mean():.0%} are nothing vs something, {one_vs_zero.mean():.0%} are 0 vs 1;"
        f" the 4 busiest weeks hold {top4:.0%} of them; a random score's 95%"
        f" interval is about {low:.2f}-{high:.2f}, worth {n_eff:.0f} independent pairs"
    )
    print(f"  noise ceiling (Poisson around the true mean): {noise_ceiling(times, counts):.3f}")
    if not len(pairs):
        return
    scores = model()(posts[:cut])(newest)
    right = right_per_pair(scores, pairs)
    by_week = [right[(times[pairs.older] // WEEK).astype(int) == w] for w in np.unique(weeks)]
    busiest = sorted(by_week, key=len, reverse=True)[:6]
    print(
        "  core blend in the busiest weeks: "
        + ", ".join(f"{part.mean():.2f} of {len(part)}" for part in busiest)
    )
    gap = np.abs(counts[pairs.older] - counts[pairs.newer])
    shares = [
        (label, right[chosen].mean() if chosen.any() else float("nan"), chosen.sum())
        for label, chosen in (
            ("0 vs 1", one_vs_zero), ("the others", ~one_vs_zero), ("3 or more apart", gap >= 3)
        )
    ]  # fmt: skip
    print("  core blend by pair: " + ", ".join(f"{a} {b:.3f} ({n})" for a, b, n in shares))
    drift(posts[:cut])


def drift(older: list[PublishedPost]) -> None:
    """Per third of the training pairs (oldest first), the share the post with more
    of a feature won, for the features whose share moves by 0.2 or more: what worked
    in one era of the account and not in the next."""
    from socialgen.insights.ranker_features import HAND_FEATURES
    from socialgen.insights.text_cues import RANKER_CUES

    x = _readable(older)
    pairs = close_pairs(_times(older), _target(older), cap=50000, rng=np.random.default_rng(0))
    thirds = np.array_split(np.arange(len(pairs)), 3)
    for j, name in enumerate((*HAND_FEATURES, *RANKER_CUES)):
        shares = []
        for part in thirds:
            d = x[pairs.newer[part], j] - x[pairs.older[part], j]
            moved = d != 0
            if moved.sum() >= 15:
                shares.append(float(np.mean((d[moved] > 0) == pairs.newer_won[part][moved])))
        if len(shares) == 3 and max(shares) - min(shares) >= 0.2:
            print(f"  drift, {name}: won {' / '.join(f'{v:.2f}' for v in shares)} by thirds")


def noise_ceiling(times: np.ndarray, counts: np.ndarray, draws: int = 200) -> float:
    """The accuracy an oracle that knows each post's expected engagement reaches on
    pairs within a week when the counts are Poisson around it. Each post's expected
    engagement is drawn from a gamma fitted (moments) to the counts of the posts
    within a week of it, so the spread between close posts is as wide as their
    counts allow (all of the variance beyond Poisson's taken for the posts' own
    doing): an upper bound on what any model of the text can do."""
    rng = np.random.default_rng(5)
    starts = np.searchsorted(times, times - WEEK, side="left")
    ends = np.searchsorted(times, times + WEEK, side="right")
    local = [counts[a:b].astype(float) for a, b in zip(starts, ends, strict=True)]
    mean = np.array([max(x.mean(), 1e-3) for x in local])
    extra = np.array([max(x.var(ddof=1) - x.mean(), 1e-3) if len(x) > 1 else 1e-3 for x in local])
    shape, scale = mean**2 / extra, extra / mean
    right = total = 0.0
    for _ in range(draws):
        lam = rng.gamma(shape, scale)
        y = rng.poisson(lam).astype(float)
        pairs = close_pairs(times, y, cap=20000, rng=rng)
        if len(pairs):
            right += ordered_share(lam, pairs) * len(pairs)
            total += len(pairs)
    return right / total if total else 0.5


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tweets", type=Path, action="append", default=[])
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--diagnose", action="store_true")
    parser.add_argument("--no-synthetic", action="store_true")
    options = parser.parse_args()
    histories = {p.stem.split("+")[0]: read_tweets_js(p) for p in options.tweets}
    if not options.no_synthetic:
        histories["synthetic"] = synthetic_history(1000, seed=21, span_days=365)
    if options.diagnose:
        for name, posts in histories.items():
            diagnose(name, posts)
        return 0
    names = [n for n in CANDIDATES if not options.only or any(o in n for o in options.only)]
    if options.held_out:
        for history, posts in histories.items():
            for name, figure in held_out(posts, {n: CANDIDATES[n] for n in names}).items():
                print(f"{history:14} {name:48} {figure}", flush=True)
        return 0
    print(f"{'candidate (validation folds)':48}" + "".join(f"{h[:11]:>12}" for h in histories))
    for name in names:
        accs = [validate(posts, CANDIDATES[name]) for posts in histories.values()]
        real = accs[: len(options.tweets)]
        print(
            f"{name:48}" + "".join(f"{a:12.3f}" for a in accs) + f"  mean {np.mean(real):.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
