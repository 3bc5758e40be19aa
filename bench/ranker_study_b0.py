"""Sixth round of the draft ranker's design study (issue 26): the readable-feature blend
without the n-gram choice ("B0"), judged on archives found for this round, by a rule
fixed before any figure below was read.

    .venv/bin/python bench/ranker_study_b0.py --tweets A.js [--tweets ...] [--fresh NAME ...]

Why this candidate. The fifth round (bench/ranker_study_scripts.py) carried B0 only as
a reference: the shipped blend (a ridge view and a pairwise-logistic view of the
readable features and the three cues) with no word or character n-grams, where the
shipped ranker chooses n-grams on an inner validation split when they clear a
one-standard-error margin. Read after the fact, B0 was ahead on average (+0.009, 95%
-0.002 to +0.031 over eight authors: andreruffert +0.012, jacklance +0.059, where the
inner split had chosen word n-grams). A figure read after the fact cannot choose a
model, so it is tested here on authors that no earlier round has read.

B0 is also the simpler model: no inner split, no vocabulary, no choice that a short
history makes by chance. So the rule asks it to be no worse, not better:

The rule, fixed before any figure below was read and before the fresh archives were
known: each author's newest 20% of posts held out, pairs published within 7 days (the
same pairs, 1000 bootstrap rounds over posts and paired differences as rounds four and
five). B0 replaces the shipped ranker only if
  (1) its mean accuracy over ALL authors is at least the shipped ranker's,
  (2) its mean over the fresh authors (found for this round) is at least the shipped
      ranker's, and
  (3) no author's paired difference (B0 minus shipped) has its whole 95% interval
      below 0.
If there is no fresh author with 300+ original posts, 30+ held-out pairs and 30+
training posts with any engagement, nothing is decided and the ranker stays.

Fresh authors, found for this round and fixed before any model ran on them (the
counts are the finder's, from the files alone):
  https://github.com/larsbrinkhoff/twitter-data  data/tweet.js at 40fcef7 (the
    export of 2021-03; the newer file is over the snapshot's size limit): 456
    original posts, 2015-2021, English, 317 training posts with any engagement
  https://github.com/dimaborbotko/twitterarchive  src/data/tweet.js: 1971, 2015-2020,
    Russian, 761
  https://github.com/paramaggarwal/render-twitter-archive  src/data/tweets.js: 1576,
    2011-2020, English, 378 (a JavaScript literal; its keys quoted to read it as JSON)
  https://github.com/boscomonkey/fitlog  docs/data/tweets.js: 1122, 2020-2024, English,
    195 (a workout log: most posts follow one template)
Left out: maxxcrawford/current-status (a hand-picked subset, every post "current
status: <link>"), and archives under 300 original posts or 30 training posts with
any engagement (joellindstrom/HonestMVP 262, MorangTheClang/Twitter2 8 with any,
Ezilryb/X 67, FeXd/saskvaccine 119, ajitg25/twitter-analytics 13,
kglibrarian/RTIatMLATwitterArchive 44). Larger archives in the index (diamonster,
keithfrankish, timlinux and others) have a tweets file over the snapshot's 4 MiB.
"""

from __future__ import annotations

import sys

from ranker_study import current, plain
from ranker_study_scripts import Fitter, hand_blend, study

BASE = "ranker as shipped"
CANDIDATES: dict[str, tuple[Fitter, str]] = {  # name: (fit, what it is judged against)
    BASE: (current, BASE),
    "plain logistic, 13 hand features": (plain, BASE),
    "B0: blend on hand features": (hand_blend(False), BASE),
}


def main() -> int:
    return study(CANDIDATES)


if __name__ == "__main__":
    sys.exit(main())
