"""Insights benchmark: the draft ranker backtested forwards in time on real and
synthetic histories, the analysis' recovery of planted effects, and timings.

    .venv/bin/python bench/insights.py --tweets PATH/data/tweets.js [--tweets ...]
        [--skip-timings] [--posts N]

(`--skip-timings` leaves out the 10,000-post timings, the slow part: the backtests
alone take well under a minute.)

(a) Real data: one author's X archive `tweets.js` per --tweets (original posts only;
engagement = likes + retweets, the archive has no reply counts). Public archives used
for the figures in docs/insights.md, none of them ours and none with a licence that
lets us copy them into this repository, so the bench reads a path:
  https://github.com/alrocar/x            data/tweets.js  (392 original posts, 2019-2024)
  https://github.com/andreruffert/twitter data/tweets.js  (858, 2010-2022)
  https://github.com/AlliePinnell/FinalTwitterBackup data/tweets.js (286, 2018-2025)
  https://github.com/smithjd/twitter_archive data/tweets.js (1470, 2007-2022)
and three fresh authors added by bench/ranker_study_fresh.py (never read before it):
  https://github.com/JackLance/jacklance.github.io data/tweets.js (389, 2014-2022)
  https://github.com/dsajgiouawj/TweetArchive data/tweet.js (893, 2016-2020, Japanese)
  https://github.com/mkommar/twitter data/tweets.js (1064, 2009-2022; 93% at 0)
and one fresh author added by bench/ranker_study_scripts.py (the fifth round):
  https://github.com/suitzero/prayGPT twitter-archive/data/tweets.js (408, 2011-2025)
and four by bench/ranker_study_b0.py (the sixth round):
  https://github.com/larsbrinkhoff/twitter-data data/tweet.js at 40fcef7 (456, 2015-2021)
  https://github.com/dimaborbotko/twitterarchive src/data/tweet.js (1971, 2015-2020, Russian)
  https://github.com/paramaggarwal/render-twitter-archive src/data/tweets.js (1576,
    2011-2020; a JavaScript literal: quote its keys to read it as JSON)
  https://github.com/boscomonkey/fitlog docs/data/tweets.js (1122, 2020-2024)
Any author found after the sixth round (a search for one author's posts with counts in
any format, converted to tweets.js) is added to the goal's summary as measured, and
no change to the ranker follows from it: the shipped ranker is only read on them.
Found, and fixed as the seventh set before the bench ran on any of them: one person's
posts each (likes and retweets; no media flags, so no post has media), converted
with their text, time and counts into tweets.js form by bench/insights_convert.py
(KIND in brackets; its docstring has each format's rules for replies and retweets):
  [analytics] https://github.com/debruine/30DCC-2022 data/tweets/tweet_activity_metrics_
    LisaDeBruine_2021*_en.csv (Twitter Analytics exports; 1077 originals, 2021; a
    text opening on @ is a reply; the time is read from the tweet id)
  [scraper-json] https://github.com/BryanChanPokJyu/twitter-scraper-aleabitoreddit
    tweets.json (1413, 2025-2026; scraped 2026-06-08, so the newest counts were still
    growing)
  [twint] https://github.com/erikjoy/elon-twitter-research data/elonmusk.csv (1727,
    2015-2020; a reply is a post whose conversation is not its own)
  [columns] https://github.com/Alisbasa/AMLOTweet tweets.csv (3249, 2017-2022, Spanish)
  [xlsx] https://github.com/Syreus868389/bolsonaro-twitter bolsonaro-tweets.xlsx (2528,
    2019-2020, Portuguese)
  [post-type] https://github.com/route7/his-tweets tweets.csv (750, 2025-2026, Korean;
    counts read 2026-07-26)
  [date-time] https://github.com/Brlaney/djt-tweets tweets.csv (2165, 2020; no ids,
    time zone unknown)
Left out: ropensci-org/ropensci-tweets, an organisation's account (many authors).
(b) Synthetic: insights.synthetic's creator with planted effects, and the same with its
engagement shuffled (nothing to learn).

Every method is scored on the same held-out pairs: the newest 20% of the posts, pairs
published within 7 days of each other (ties left out), learnt from the older 80%. Each
figure comes with its 95% interval, a bootstrap over posts (pairs sharing a post are not
independent; 1000 rounds), and "ranker minus plain logistic" is the paired difference
on the same rounds: a difference whose interval holds 0 is not a win, whatever its sign.
The ranker's design was chosen without these held-out posts (bench/ranker_study.py
compares the candidates on validation folds inside the older 80% only); this script is
where the held-out figure is read, once per design.

After the goal, each real history with its counts dealt out at random over its posts
40 times: in how many runs the analysis still names a finding or a best time (pure
noise: about 2 in 40).

Goals (issue 26): ranker >= 0.58 on real authors with 300+ posts, above the plain
logistic model on a dozen hand features; insights on 10,000 posts < 1 s in-process and
< 2 s from the CLI. Last run (docs/insights.md has the table): ranker 0.716, 0.671,
0.755, 0.556 on the four archives against the plain model's 0.703, 0.640, 0.768, 0.562;
no difference significant, and smithjd stays under 0.58 (and not `confident`). The
"goal" row says per author whether the ranker's 95% interval shows 0.58 met, missed or
neither (alrocar, AlliePinnell met; andreruffert, smithjd neither: smithjd's 0.556 has
0.44 to 0.68); "what the pairs are" says how many held-out pairs set a post with no
engagement against one with some (88% for smithjd). Why smithjd stays low:
bench/ranker_study_targets.py --diagnose, and docs/insights.md. The fresh authors
(after the pair-sampling fix of the fourth round; mkommar was 0.500 before it, no
order at all): ranker 0.397 (34 pairs), 0.498, 0.760 against the plain model's 0.426,
0.486, 0.775; no difference significant; the goal met for mkommar only. suitzero
(fifth round): ranker 0.637 against the plain model's 0.520, the one significant
difference (+0.117, 95% +0.013 to +0.252).

After the table, the goal as written, over every real author with 300+ posts (the
mean of their held-out accuracies and of the ranker minus the plain model, 95%
intervals from the authors' independent bootstrap rounds), then the same read across
authors (a t interval over the authors' figures: what a new author can expect). Last
run, 18 authors: mean 0.616 (0.588 to 0.644), met; minus plain +0.017 (+0.001 to
+0.032), significant; 12 of 18 at or above 0.58. Across authors: 0.616 (0.571 to
0.662), +0.017 (-0.001 to +0.034), ahead on 12 of 18. The eleven X archives alone:
0.606 (0.564 to 0.650), +0.024 (-0.002 to +0.049). The sixth round's four: ranker
0.639, 0.594, 0.626, 0.570 against the plain model's 0.601, 0.543, 0.606, 0.537.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
from tests.insights_synthetic import PLANTED, shuffled_engagement, synthetic_history

from harness import Table, bench_env, bench_home, environ, machine_line, socialgen_command
from insights_data import read_tweets_js, seed_store
from socialgen.insights.history import PublishedPost
from socialgen.insights.pairs import Pairs, close_pairs
from socialgen.insights.ranker import EVALUATION_PAIRS, HELD_OUT_SHARE, train_ranker
from socialgen.insights.ranker_features import PostText, hand_matrix

BOOTSTRAP_ROUNDS = 1000
GOAL = 0.58  # issue 26: held-out pairwise accuracy on real authors with 300+ posts
GOAL_POSTS = 300
PLAIN = "plain logistic, 13 hand features"


@dataclass(frozen=True)
class AuthorRounds:
    """One history's bootstrap rounds: the ranker's accuracy and its difference to the
    plain model, one value per round (for the mean over several authors)."""

    posts: int
    accuracy: float
    minus_plain_mean: float
    ranker: np.ndarray
    minus_plain: np.ndarray


def backtest(name: str, posts: list[PublishedPost], table: Table) -> AuthorRounds | None:
    """Each method's pairwise accuracy on the held-out pairs, in `table`; the ranker's
    bootstrap rounds (None without held-out pairs or a plain model)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    cut = len(posts) - math.ceil(len(posts) * HELD_OUT_SHARE)
    older, newest = posts[:cut], posts[cut:]
    times = np.array([p.published_at.timestamp() for p in newest])
    target = np.log1p(np.array([p.engagement for p in newest], dtype=np.float64))
    pairs = close_pairs(times, target, cap=EVALUATION_PAIRS, rng=rng)
    texts = [PostText(p.content, p.has_media) for p in newest]
    older_texts = [PostText(p.content, p.has_media) for p in older]
    older_target = np.log1p(np.array([p.engagement for p in older], dtype=np.float64))

    started = time.perf_counter()
    ranker = train_ranker(older)
    trained = time.perf_counter() - started
    scores: dict[str, np.ndarray] = {
        "ranker (week-relative + median blend)": np.array(ranker.score(texts)),
    }
    lengths = np.array([len(p.content) for p in newest], dtype=np.float64)
    older_lengths = np.array([len(p.content) for p in older], dtype=np.float64)
    older_times = np.array([p.published_at.timestamp() for p in older])
    older_pairs = close_pairs(older_times, older_target, cap=EVALUATION_PAIRS, rng=rng)
    longer = older_lengths[older_pairs.newer] > older_lengths[older_pairs.older]
    longer_won = np.mean(longer == older_pairs.newer_won) if len(older_pairs) else 0.5
    scores["length only (direction learnt)"] = lengths if longer_won >= 0.5 else -lengths
    scores["later wins"] = np.arange(len(newest), dtype=np.float64)
    hand, older_hand = hand_matrix(texts), hand_matrix(older_texts)
    mean, scale = older_hand.mean(axis=0), older_hand.std(axis=0) + 1e-9
    above = older_target > np.median(older_target)
    if above.any() and not above.all():
        plain = LogisticRegression(C=1.0, max_iter=1000).fit((older_hand - mean) / scale, above)
        scores[PLAIN] = plain.decision_function((hand - mean) / scale)
    table.add(f"{name}: {len(posts)} posts", "", "", "", f"{len(pairs)} held-out pairs")
    table.add("  random", "0.500", "", "", "")
    if len(pairs) == 0:
        table.add("  (no held-out pairs)", "", "", "", "")
        return None
    rights = {method: right_per_pair(values, pairs) for method, values in scores.items()}
    weights = pair_weights(pairs, len(newest), rng)
    for method, right in rights.items():
        low, high = interval(weights, right)
        note = ""
        if method.startswith("ranker"):
            chosen = ranker.model.feature_set if ranker.model else "none"
            note = f"features {chosen}; trained in {trained:.2f} s"
        table.add(f"  {method}", f"{right.mean():.3f}", f"{low:.3f}", f"{high:.3f}", note)
    ours = next(iter(rights))
    low, high = interval(weights, rights[ours])
    table.add("  goal (issue 26)", f"{GOAL:.3f}", "", "", goal_verdict(low, high))
    counts = np.array([p.engagement for p in newest])
    nothing = np.mean((counts[pairs.older] == 0) | (counts[pairs.newer] == 0))
    weeks = len(np.unique((times[pairs.older] // (7 * 86400)).astype(np.int64)))
    table.add(
        "  what the pairs are", "", "", "",
        f"{nothing:.0%} nothing vs something; {weeks} weeks; "
        f"{np.mean(counts == 0):.0%} of these posts at 0",
    )  # fmt: skip
    if PLAIN in rights:
        difference = rights[ours] - rights[PLAIN]
        low, high = interval(weights, difference)
        verdict = "significant" if low > 0 or high < 0 else "not significant (0 inside)"
        table.add(
            "  ranker minus plain logistic", f"{difference.mean():+.3f}", f"{low:+.3f}",
            f"{high:+.3f}", verdict,
        )  # fmt: skip
    full = train_ranker(posts)
    table.add(
        "  what the user sees (train_ranker on all)",
        "" if full.held_out_accuracy is None else f"{full.held_out_accuracy:.3f}",
        "" if full.held_out is None else f"{full.held_out.low:.3f}",
        "",
        f"confident={full.confident}, {full.held_out_pairs} pairs",
    )
    if PLAIN not in rights:
        return None
    difference = rights[ours] - rights[PLAIN]
    return AuthorRounds(
        posts=len(posts),
        accuracy=float(rights[ours].mean()),
        minus_plain_mean=float(difference.mean()),
        ranker=rounds(weights, rights[ours]),
        minus_plain=rounds(weights, difference),
    )


def rounds(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The weighted mean of `values` in each bootstrap round (a round that drew no pair,
    possible with a few dozen pairs, counts as the plain mean)."""
    totals = weights.sum(axis=1)
    safe = np.where(totals > 0, totals, 1.0)
    return np.where(totals > 0, (weights @ values) / safe, values.mean())  # type: ignore[no-any-return]


def goal_summary(authors: dict[str, AuthorRounds]) -> list[str]:
    """The goal read over every real author with GOAL_POSTS or more posts: the mean of
    their held-out accuracies and of the ranker's difference to the plain model, with
    95% intervals (the authors' bootstrap rounds are independent: the mean of one round
    from each is one round of the mean)."""
    counted = {name: rounds for name, rounds in authors.items() if rounds.posts >= GOAL_POSTS}
    if not counted:
        return []
    accuracy = np.mean([r.ranker for r in counted.values()], axis=0)
    difference = np.mean([r.minus_plain for r in counted.values()], axis=0)
    a_low, a_high = np.quantile(accuracy, [0.025, 0.975])
    d_low, d_high = np.quantile(difference, [0.025, 0.975])
    mean_accuracy = float(np.mean([r.accuracy for r in counted.values()]))
    mean_difference = float(np.mean([r.minus_plain_mean for r in counted.values()]))
    at_goal = sum(r.accuracy >= GOAL for r in counted.values())
    d_verdict = "significant" if d_low > 0 or d_high < 0 else "not significant (0 inside)"
    return [
        f"the goal over the {len(counted)} real authors with {GOAL_POSTS}+ posts"
        f" ({', '.join(counted)}):",
        f"  mean held-out accuracy {mean_accuracy:.3f} (95% {a_low:.3f} to {a_high:.3f});"
        f" {goal_verdict(float(a_low), float(a_high))}",
        f"  mean difference to the plain logistic model {mean_difference:+.3f}"
        f" (95% {d_low:+.3f} to {d_high:+.3f}): {d_verdict}",
        f"  authors at or above {GOAL}: {at_goal} of {len(counted)}",
        *across_authors(counted),
    ]


def across_authors(counted: dict[str, AuthorRounds]) -> list[str]:
    """The same means read for a new author like these: each author one figure, a t
    interval over them. The bootstrap above holds the authors fixed (how well these
    ones are measured); this one also counts how much authors differ from each other."""
    from scipy import stats

    if len(counted) < 3:
        return []
    lines = ["  read across authors (for a new author like these; t interval over authors):"]
    for label, values, fmt in (
        ("mean held-out accuracy", [r.accuracy for r in counted.values()], ".3f"),
        (
            "mean difference to the plain model",
            [r.minus_plain_mean for r in counted.values()],
            "+.3f",
        ),
    ):
        low, high = stats.t.interval(
            0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values)
        )
        lines.append(f"    {label} {np.mean(values):{fmt}} (95% {low:{fmt}} to {high:{fmt}})")
    ahead = sum(r.minus_plain_mean > 0 for r in counted.values())
    sign = stats.binomtest(ahead, len(counted)).pvalue
    lines.append(
        f"    ranker ahead of the plain model on {ahead} of {len(counted)} (sign test p={sign:.2f})"
    )
    return lines


def goal_verdict(low: float, high: float) -> str:
    """Whether the ranker's 95% interval shows the goal met, ruled out, or neither: a
    few hundred pairs that share posts cannot tell 0.56 from 0.58."""
    if low >= GOAL:
        return f"met: the whole interval is at or above {GOAL}"
    if high < GOAL:
        return f"missed: the whole interval is under {GOAL}"
    return f"undecided: {GOAL} is inside the interval"


def right_per_pair(scores: np.ndarray, pairs: Pairs) -> np.ndarray:
    """1 per pair put in the right order, 0 in the wrong one, 0.5 for equal scores."""
    difference = scores[pairs.newer] - scores[pairs.older]
    ordered = ((difference > 0) == pairs.newer_won).astype(np.float64)
    return np.where(difference == 0, 0.5, ordered)


def pair_weights(pairs: Pairs, n_posts: int, rng: np.random.Generator) -> np.ndarray:
    """BOOTSTRAP_ROUNDS x pairs: a Poisson bootstrap over posts (a pair weighs the
    product of its two posts' weights), the same rounds for every method so that
    differences between methods are paired."""
    posts = rng.poisson(1.0, size=(BOOTSTRAP_ROUNDS, n_posts)).astype(np.float64)
    return posts[:, pairs.older] * posts[:, pairs.newer]


def interval(weights: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of the weighted mean of `values` over the rounds."""
    totals = weights.sum(axis=1)
    usable = totals > 0
    replicates = (weights[usable] @ values) / totals[usable]
    return float(np.quantile(replicates, 0.025)), float(np.quantile(replicates, 0.975))


def recovery() -> list[str]:
    """The analysis on the synthetic creator: planted effects and slot found?"""
    from socialgen.insights.analysis import analyse

    lines = []
    runs, recovered, slot_first, false_alarms = 5, 0, 0, 0
    planted_scores = []
    for seed in range(runs):
        history = synthetic_history(400, seed=500 + seed)
        view = analyse(history, ZoneInfo("UTC")).view()
        planted = next(
            slot
            for slot in view["slots"]
            if (slot["weekday"], slot["start"]) == (PLANTED.slot_weekday_name, PLANTED.slot_start)
        )
        planted_scores.append(planted)
        noise = analyse(shuffled_engagement(history, seed), ZoneInfo("UTC")).view()
        false_alarms += any(slot["low"] > 1 for slot in noise["bestSlots"])
        best = view["bestSlots"][0] if view["bestSlots"] else None
        if best:
            slot_first += (best["weekday"], best["start"]) == (
                PLANTED.slot_weekday_name,
                PLANTED.slot_start,
            )
        found = {finding["feature"]: finding for finding in view["findings"]}
        question, media = found.get("question hook"), found.get("media")
        recovered += bool(
            question
            and media
            and question["low"] <= PLANTED.question_hook <= question["high"]
            and media["low"] <= PLANTED.media <= media["high"]
        )
        if seed == 0:
            lines.append(f"  seed 500 findings: {sorted(found)}; best slot {best}")
    lines.append(
        f"  question hook x{PLANTED.question_hook} and media x{PLANTED.media} inside their"
        f" intervals in {recovered}/{runs} runs; {PLANTED.slot_weekday_name}"
        f" {PLANTED.slot_start}-{PLANTED.slot_end} h first in {slot_first}/{runs}"
    )
    lines.append(
        f"  the planted x{PLANTED.slot} slot scored "
        + ", ".join(
            f"x{p['score']} (x{p['low']} to x{p['high']}, n={p['n']})" for p in planted_scores
        )
    )
    lines.append(
        f"  engagement shuffled: a best slot with its 90% interval wholly above 1 in"
        f" {false_alarms}/{runs} runs"
    )
    return lines


SHUFFLES = 40


def honesty_on_real(name: str, posts: list[PublishedPost]) -> str:
    """The real history with its counts dealt out at random SHUFFLES times: in how many
    runs the analysis still names a finding or a best time (pure noise: 5% or so)."""
    from socialgen.insights.analysis import analyse

    findings = best = 0
    for seed in range(SHUFFLES):
        view = analyse(shuffled_engagement(posts, seed), ZoneInfo("UTC")).view()
        findings += bool(view["findings"])
        best += bool(view["bestSlots"])
    at_zero = np.mean([post.engagement == 0 for post in posts])
    return (
        f"  {name} ({len(posts)} posts, {at_zero:.0%} at 0): a finding in {findings}/{SHUFFLES},"
        f" a best time in {best}/{SHUFFLES}"
    )


def timings(n_posts: int) -> list[str]:
    from socialgen.insights.analysis import analyse

    posts = synthetic_history(n_posts, seed=11)
    lines = []
    for label, run in (
        ("insights analysis in-process", lambda: analyse(posts, ZoneInfo("UTC"))),
        ("ranker training in-process", lambda: train_ranker(posts)),
    ):
        started = time.perf_counter()
        run()
        lines.append(f"  {label}, {n_posts} posts: {time.perf_counter() - started:.2f} s")
    with bench_home("socialgen-bench-insights-") as home:
        env = bench_env(home)
        subprocess.run(
            [*socialgen_command(), "posts", "recent"], env=env, check=True, capture_output=True
        )
        with environ({"SOCIALGEN_HOME": str(home), "SOCIALGEN_DATABASE_URL": None}):
            _, drafts = seed_store(posts)
        for label, args in (
            ("socialgen insights --json", ["insights", "--json"]),
            ("socialgen insights rank (5 drafts) --json", ["insights", "rank", *drafts, "--json"]),
        ):
            started = time.perf_counter()
            done = subprocess.run(
                [*socialgen_command(), *args], env=env, capture_output=True, text=True
            )
            took = time.perf_counter() - started
            summary = done.stderr.strip()[-200:] if done.returncode else _summary(done.stdout)
            lines.append(
                f"  {label}, {n_posts} posts: {took:.2f} s (exit {done.returncode}) {summary}"
            )
    return lines


def _summary(stdout: str) -> str:
    data = json.loads(stdout)
    keys = ("posts", "enough", "confident", "heldOutAccuracy", "pairs")
    return str({key: data[key] for key in keys if key in data})


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--tweets", type=Path, action="append", default=[], help="an X archive's tweets.js"
    )
    parser.add_argument("--posts", type=int, default=10_000, help="posts for the timings")
    parser.add_argument("--skip-timings", action="store_true")
    options = parser.parse_args()
    print(machine_line())
    table = Table("held-out pairwise accuracy", "acc", "low95", "high95", "notes", notes=True)
    if not options.tweets:
        print("(a) no --tweets given: the real archives are read from a path (see the docstring)")
    authors: dict[str, AuthorRounds] = {}
    honesty: list[str] = []
    for path in options.tweets:
        name = path.parent.parent.name if path.name == "tweets.js" else path.stem
        posts = read_tweets_js(path)
        found = backtest(name, posts, table)
        if found is not None:
            authors[name] = found
        honesty.append(honesty_on_real(name, posts))
    backtest("synthetic, planted effects", synthetic_history(1000, seed=21, span_days=365), table)
    shuffled = shuffled_engagement(synthetic_history(1000, seed=21, span_days=365), 5)
    backtest("synthetic, shuffled engagement", shuffled, table)
    print(table.render())
    print("\n".join(goal_summary(authors)))
    if honesty:
        print(f"the real histories with their counts shuffled ({SHUFFLES} runs each):")
        print("\n".join(honesty))
    print("recovery by the insights analysis (synthetic creator):")
    print("\n".join(recovery()))
    if not options.skip_timings:
        print("timings:")
        print("\n".join(timings(options.posts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
