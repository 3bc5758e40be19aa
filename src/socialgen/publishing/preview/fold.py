"""Where a feed folds a post's text behind a "see more".

LinkedIn's feed shows about the first 210 characters of a post, or its first three
lines when it breaks lines earlier, then "…see more": what sits before the fold is
the hook a reader decides on. The fold falls at a word's end (the feed never cuts a
word), so the visible text ends at the last space at or before the 210th character.

The other networks publish no such fold: Bluesky, Mastodon, X, Threads, Telegram,
Discord, Nostr and Pixelfed show each part whole (a part is within their limit), so
they have none here.
"""

from __future__ import annotations

from socialgen.publishing.preview.schemas import FoldView

LINKEDIN_FOLD_CHARACTERS = 210
LINKEDIN_FOLD_LINES = 3
SEE_MORE = "…see more"


def fold_of(network: str, text: str) -> FoldView | None:
    """The fold of `text` (the first part) on `network`; None where there is none."""
    if network != "linkedin":
        return None
    return linkedin_fold(text)


def linkedin_fold(text: str) -> FoldView | None:
    """LinkedIn's fold of `text`, or None when the feed shows it whole."""
    by_lines = _end_of_line(text, LINKEDIN_FOLD_LINES)
    by_characters = _word_end(text, LINKEDIN_FOLD_CHARACTERS)
    candidates = [
        (at, reason)
        for at, reason in (
            (by_characters, f"about {LINKEDIN_FOLD_CHARACTERS} characters, at a word's end"),
            (by_lines, f"after its first {LINKEDIN_FOLD_LINES} lines"),
        )
        if at is not None
    ]
    if not candidates:
        return None
    at, reason = min(candidates)
    visible = text[:at].rstrip()
    if not text[at:].strip():  # only blanks behind it: nothing folded
        return None
    return FoldView(
        visible=visible,
        at=len(visible),
        hidden=len(text[at:].strip()),
        marker=SEE_MORE,
        reason=reason,
    )


def _word_end(text: str, limit: int) -> int | None:
    """Where the text shown within `limit` characters ends (at a word's end); None
    when the whole text fits."""
    if len(text.rstrip()) <= limit:
        return None
    window = text[: limit + 1]  # a space right after the limit ends a word that fits
    cut = max(window.rfind(" "), window.rfind("\n"), window.rfind("\t"))
    if cut <= 0:  # one word longer than the fold: the feed cuts it
        return limit
    return cut


def _end_of_line(text: str, lines: int) -> int | None:
    """Where line `lines` ends; None when the text has no more lines after it."""
    at = -1
    for _ in range(lines):
        at = text.find("\n", at + 1)
        if at < 0:
            return None
    return at if text[at:].strip() else None
