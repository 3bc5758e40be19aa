"""Fifth round of the draft ranker's design study (issue 26): reading scripts written
without spaces, and a control for bursts of posts, judged by a rule fixed before any
figure below was read.

    .venv/bin/python bench/ranker_study_scripts.py --tweets A.js [--tweets ...]
        [--fresh NAME ...]

Why these candidates. The fourth round (bench/ranker_study_fresh.py) left two kinds of
history under the 0.58 goal. dsajgiouawj writes in Japanese: its word n-grams are read
with scikit-learn's default token pattern (a run of two or more word characters), so a
Japanese sentence, written without spaces, is one "word" that never comes back, and
the readable word counts see one or two words per post. smithjd live-tweets meetups:
15 to 26 posts in an evening, most of them at 0, so which post of an evening did better
is mostly which came first.

- S1, unspaced scripts read per character: the word n-grams read each kana or CJK
  ideograph as a word (BERT's basic tokenizer does the same), so a Japanese post's
  "word 1-2-grams" are its character uni- and bigrams. A text with no such character
  is read exactly as before.
- S2, S1 and the readable counts too: "log words" and "words per sentence" count each
  such character as a word, and a sentence also ends at the ideographic full stop,
  exclamation and question marks.
- B, a burst control: the ranker's hand-feature model learnt with one more column,
  log(1 + the author's other posts within 3 hours), whose weight is dropped when it
  scores (drafts are compared as if posted alone; this only keeps a busy evening's
  low numbers from being blamed on the words its posts share). Compared with the same
  model without the column ("B0"), since the shipped ranker may also use n-grams.

The rule, fixed before any figure below was read (round four's, unchanged): each
author's newest 20% of posts held out, pairs published within 7 days (the same pairs,
bootstrap rounds and paired differences as bench/ranker_study_fresh.py). A candidate
is kept only if (1) its mean over ALL authors beats the shipped ranker's, (2) its mean
over the fresh authors (never read by an earlier round) does not fall, and (3) no
author's paired difference has its whole 95% interval below 0. B is judged against
B0 the same way. Fresh author for this round, found before any model ran on it:
  https://github.com/suitzero/prayGPT  twitter-archive/data/tweets.js
  (408 original posts, 2011-2025, 183 with a like or retweet; English and Korean)
Other archives found and left out, by the same test as round four: milahu/twitter-milahu104
(26 original posts), eroija/twitter (6), denchi/lumeninferiusarchive (13);
sean-parent/sean-parent.github.io's archive is not in the snapshot.

What it found (docs/insights.md, fifth round), held out, 8 authors:

  method                 mean    dsajgiouawj  smithjd  suitzero  mean difference (95%)
  ranker as shipped      0.624   0.498        0.556    0.637
  plain logistic         0.610   0.486        0.562    0.520     -0.014 (-0.044 to +0.016)
  S1                     0.624   0.498        0.556    0.637     +0.000 (identical on all 8)
  S2                     0.623   0.489        0.556    0.639     -0.001 (-0.007 to +0.005)
  B0 (B's reference)     0.633   0.498        0.564    0.639     +0.009 (-0.002 to +0.031)
  B, against B0          0.633   0.500        0.562    0.639     +0.001 (-0.004 to +0.005)

None is kept. S1 and S2 fail rule (1). The ranker still leaves the n-grams out for
dsajgiouawj: read per character, they order its inner validation pairs a little
better (0.565 and 0.573 against 0.555), but not by the one-standard-error margin
(0.042 with 143 validation posts). B passes the rule's letter by 0.001, noise, and
not on smithjd, the history it was meant for. The shipped ranker is significantly
ahead of the plain model on the fresh author, suitzero (+0.117, 95% +0.018 to +0.240).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np

from insights import interval, pair_weights, right_per_pair
from insights_data import read_tweets_js
from ranker_study import Std, _pairs, _target, _times, current, features, plain
from socialgen.insights import ranker_features, text_cues
from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import close_pairs
from socialgen.insights.ranker import EVALUATION_PAIRS, HELD_OUT_SHARE
from socialgen.insights.ranker_model import blend_weights, local_median

Scorer = Callable[[list[PublishedPost]], np.ndarray]
Fitter = Callable[[list[PublishedPost]], Scorer]

# Hiragana, katakana, CJK ideographs (with extension A and the compatibility block).
UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN_PATTERN = rf"(?u)[{UNSPACED}]|[^\W{UNSPACED}]{{2,}}"
_UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")
_SENTENCE_S2 = re.compile(r"(?:[.!?]+(?:\s|$))|[\u3002\uff01\uff1f]+")
BURST_HOURS = 3.0


@contextmanager
def per_character_tokens() -> Iterator[None]:
    """S1: the ranker's word TF-IDF reads each unspaced-script character as a word."""
    from sklearn.feature_extraction import text

    original = text.TfidfVectorizer

    def vectorizer(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("analyzer", "word") == "word":
            kwargs["token_pattern"] = TOKEN_PATTERN
        return original(*args, **kwargs)

    with patch.object(text, "TfidfVectorizer", vectorizer):
        yield


def _words_s2(text: str) -> int:
    spaced = _UNSPACED_CHAR.sub(" ", text)
    return len(spaced.split()) + len(_UNSPACED_CHAR.findall(text))


@contextmanager
def per_character_counts() -> Iterator[None]:
    """S2's counts: "log words" and "words per sentence" count each unspaced-script
    character as a word; a sentence also ends at the ideographic full stop and the
    full-width ! and ?."""
    describe = ranker_features.describe  # type: ignore[attr-defined]

    def described(text: str) -> Any:
        found = describe(text)
        if not _UNSPACED_CHAR.search(text):
            return found
        without_links = text_cues._without_links(text)
        return replace(found, words=_words_s2(without_links))

    def cues_s2(text: str) -> tuple[float, float, float]:
        plain_text = text_cues._without_links(text)
        words = text_cues._WORD.findall(plain_text)
        count = len(words)
        if _UNSPACED_CHAR.search(plain_text):
            count = _words_s2(plain_text)
        sentences = max(1, len(_SENTENCE_S2.findall(plain_text)))
        return (
            text_cues._capitalised(words),
            math.log1p(count / sentences),
            text_cues._opens_with_mention(text.lstrip()),
        )

    with (
        patch.object(ranker_features, "describe", described),
        patch.object(ranker_features, "ranker_cues", cues_s2),
    ):
        yield


def s1(train: list[PublishedPost]) -> Scorer:
    with per_character_tokens():
        scorer = current(train)

    def score(posts: list[PublishedPost]) -> np.ndarray:
        with per_character_tokens():
            scores: np.ndarray = scorer(posts)
        return scores

    return score


def s2(train: list[PublishedPost]) -> Scorer:
    with per_character_tokens(), per_character_counts():
        scorer = current(train)

    def score(posts: list[PublishedPost]) -> np.ndarray:
        with per_character_tokens(), per_character_counts():
            scores: np.ndarray = scorer(posts)
        return scores

    return score


def _burst(posts: list[PublishedPost]) -> np.ndarray:
    """log(1 + the other posts of the list within BURST_HOURS of each)."""
    times = _times(posts)
    window = BURST_HOURS * 3600.0
    starts = np.searchsorted(times, times - window, side="left")
    ends = np.searchsorted(times, times + window, side="right")
    column: np.ndarray = np.log1p(ends - starts - 1).reshape(-1, 1)
    return column


def hand_blend(control: bool) -> Fitter:
    """The shipped blend on the "hand" feature set (HAND_FEATURES and RANKER_CUES), with
    the burst column in training when `control` (its weight dropped when scoring)."""
    build = features("hand+cue3+cue5+cue6")

    def fit(train: list[PublishedPost]) -> Scorer:
        from scipy import sparse

        rng = np.random.default_rng(0)
        x = build(train)
        if control:
            x = np.hstack([x, _burst(train)])
        std = Std(x)
        times, target = _times(train), _target(train)
        relative = target - local_median(times, target)
        w = blend_weights(sparse.csr_matrix(std(x)), target, relative, _pairs(train, rng), 0.1, rng)
        if control:
            w = w[:-1]
            mean, scale = std.mean[:-1], std.scale[:-1]
            return lambda posts: ((build(posts) - mean) / scale) @ w
        return lambda posts: std(build(posts)) @ w

    return fit


BASE = "ranker as shipped"
CANDIDATES: dict[str, tuple[Fitter, str]] = {  # name: (fit, what it is judged against)
    BASE: (current, BASE),
    "plain logistic, 13 hand features": (plain, BASE),
    "S1: unspaced scripts read per character": (s1, BASE),
    "S2: S1 and the readable counts": (s2, BASE),
    "B0: blend on hand features": (hand_blend(False), BASE),
    "B: B0 with a burst control": (hand_blend(True), "B0: blend on hand features"),
}


def held_out_for(
    candidates: dict[str, tuple[Fitter, str]], name: str, posts: list[PublishedPost]
) -> tuple[dict[str, tuple[float, ...]], dict[str, np.ndarray]]:
    """Per method: (accuracy, low, high, difference to its reference, low, high), and
    the difference's bootstrap replicates (one per round, for the mean over authors)."""
    rng = np.random.default_rng(0)
    cut = len(posts) - math.ceil(len(posts) * HELD_OUT_SHARE)
    older, newest = posts[:cut], posts[cut:]
    pairs = close_pairs(_times(newest), _target(newest), cap=EVALUATION_PAIRS, rng=rng)
    weights = pair_weights(pairs, len(newest), np.random.default_rng(7))
    rights = {m: right_per_pair(fit(older)(newest), pairs) for m, (fit, _) in candidates.items()}
    out: dict[str, tuple[float, ...]] = {}
    replicates: dict[str, np.ndarray] = {}
    totals = weights.sum(axis=1)
    for method, right in rights.items():
        low, high = interval(weights, right)
        d = right - rights[candidates[method][1]]
        d_low, d_high = interval(weights, d)
        out[method] = (right.mean(), low, high, d.mean(), d_low, d_high)
        replicates[method] = np.where(
            totals > 0, (weights @ d) / np.where(totals > 0, totals, 1.0), d.mean()
        )
    print(f"{name}: {len(posts)} posts, {len(newest)} held out, {len(pairs)} pairs", flush=True)
    return out, replicates


def report(
    candidates: dict[str, tuple[Fitter, str]],
    results: dict[str, dict[str, tuple[float, ...]]],
    rounds: dict[str, dict[str, np.ndarray]],
    fresh_authors: list[str],
) -> None:
    """Each method's held-out figures per author, its means over all and over the fresh
    authors, and its mean paired difference to its reference with a 95% interval."""
    for method, (_, reference) in candidates.items():
        print(f"\n{method}  (differences to: {reference})")
        for author, figures in results.items():
            acc, low, high, d, d_low, d_high = figures[method]
            fresh = " (fresh)" if author in fresh_authors else ""
            print(
                f"  {author + fresh:40} {acc:.3f} ({low:.3f}-{high:.3f})"
                f"   difference {d:+.3f} ({d_low:+.3f} to {d_high:+.3f})"
            )
        every = [figures[method][0] for figures in results.values()]
        fresh_ones = [f[method][0] for a, f in results.items() if a in fresh_authors]
        worst = min(figures[method][5] for figures in results.values())
        print(
            f"  mean over {len(every)}: {np.mean(every):.3f}; over the fresh"
            f" {len(fresh_ones)}: {np.mean(fresh_ones) if fresh_ones else float('nan'):.3f};"
            f" lowest upper end of a difference's interval {worst:+.3f}"
        )
        for label, authors in (("all", list(rounds)), ("fresh", fresh_authors)):
            if authors and method != reference:
                mean = np.mean([rounds[a][method] for a in authors if a in rounds], axis=0)
                low, high = np.quantile(mean, [0.025, 0.975])
                print(
                    f"  mean difference, {label}: {mean.mean():+.3f}"
                    f" (95% {low:+.3f} to {high:+.3f})"
                )


def study(candidates: dict[str, tuple[Fitter, str]]) -> int:
    """Read the archives named on the command line and report `candidates` held out."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tweets", type=Path, action="append", default=[])
    parser.add_argument("--fresh", action="append", default=[], help="an archive never read")
    options = parser.parse_args()
    results: dict[str, dict[str, tuple[float, ...]]] = {}
    rounds: dict[str, dict[str, np.ndarray]] = {}
    for path in options.tweets:
        results[path.stem], rounds[path.stem] = held_out_for(
            candidates, path.stem, read_tweets_js(path)
        )
    report(candidates, results, rounds, options.fresh)
    return 0


def main() -> int:
    return study(CANDIDATES)


if __name__ == "__main__":
    sys.exit(main())
