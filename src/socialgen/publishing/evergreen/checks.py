"""Whether a variation may go out: not the original again (X and others refuse the same
text twice, and the creator's followers notice), not an earlier run again, not the
instructions the model was given, about the original's subject, and as many parts as
the original on every network it goes to (a post that fit X in one stays one).

Each check says why it refuses, in words the run keeps for the creator.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

from socialgen.drafting.topic import topic_coverage
from socialgen.publishing.outbox.dryrun_unconnected import unconnected_preview
from socialgen.publishing.registry import BUILT_IN

# Word sequences this alike (difflib's ratio, 0..1) are the same post reworded a little:
# a fresh variation shares facts and names with the original, not most of its wording.
NEAR_COPY = 0.8
# Alike to the instructions this much: the model wrote the prompt back, not a post.
ECHO = 0.5
# A variation that carries fewer of the original's content words than this is about
# something else (a small model drifting), not the same post said anew.
MIN_COVERAGE = 0.15
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-case words, compatibility forms folded (fancy Unicode letters, ligatures):
    punctuation, emoji and spacing make no difference to what was said."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def likeness(first: str, second: str) -> float:
    """How alike two texts' word sequences are, 0 (nothing shared) to 1 (the same)."""
    a, b = words(first), words(second)
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def copy_problem(text: str, earlier: Sequence[tuple[str, str]]) -> str | None:
    """Why `text` repeats one of `earlier` ((what it is, its text): the original, run
    2 ...), or None."""
    mine = words(text)
    for name, other in earlier:
        if mine == words(other):
            return f"the model wrote {name} again (the same words)"
        alike = likeness(text, other)
        if alike >= NEAR_COPY:
            return f"the model's text is {alike:.0%} the same as {name}: too close to post again"
    return None


def echo_problem(text: str, instructions: str) -> str | None:
    """Why `text` is the instructions written back (a template, not a post), or None."""
    alike = likeness(text, instructions)
    if alike >= ECHO:
        return f"the model wrote its instructions back ({alike:.0%} alike), not a post"
    return None


def topic_problem(text: str, original: str) -> str | None:
    if topic_coverage(text, original) < MIN_COVERAGE:
        return "the model's text is about something else than the original"
    return None


def fit_problem(text: str, original: str, networks: Sequence[str]) -> str | None:
    """Why `text` does not fit one of `networks` the way `original` does: more parts
    (a one-post original becoming a thread on X), or a refusal of the network's rules.
    Read with the dry run's text rules, without credentials or a network call."""
    for network in dict.fromkeys(networks):
        if network not in BUILT_IN:
            continue  # a network module handed in (a test's): no text rules to read
        mine = unconnected_preview(network, "", text, [], number_parts=False)
        theirs = unconnected_preview(network, "", original, [], number_parts=False)
        if mine.get("error") and not theirs.get("error"):
            return f"{network} would refuse it: {mine['error']}"
        allowed = max(1, len(theirs["parts"]))
        if len(mine["parts"]) > allowed:
            return (
                f"too long for {network}: it would go out in {len(mine['parts'])} parts, "
                f"the original in {allowed}"
            )
    return None
