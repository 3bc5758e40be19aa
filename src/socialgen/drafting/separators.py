"""What a model puts around a post and no post should keep: `---` (or `***`, `___`,
`===`) rule lines, code fences, and a lead-in line ("Here is your post:", "Sure!
Here's a LinkedIn post about X:", "**Post:**").

Applied where every written post is finished before it is saved (drafting/linkedin.py,
through drafting/writing.finished_post: post, batch, calendar and chat alike), so a
styled post never starts with a `---` line however the model framed it.
"""

from __future__ import annotations

import re

# A whole line of three or more of one mark: markdown's rule, a model's separator.
_RULE = re.compile(r"^[ \t]*([-*_=~])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE)
# A code fence line, with or without a language ("```text", "~~~").
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[\w+-]*[ \t]*$", re.MULTILINE)
_MARKS = "*_#> \t"
# A lead-in line: it opens as a model's answer opens, speaks of the post, ends in ":".
# "Here are 3 lessons:" opens a post's own list and stays: it names no post.
_LEAD_IN_OPENING = re.compile(
    r"^(?:sure|okay|ok|certainly|absolutely|of course|great|here is|here's|here are|"
    r"below is|your|the|a|linkedin|final|new|post|draft)\b",
    re.IGNORECASE,
)
_LEAD_IN_SUBJECT = re.compile(r"\b(?:post|draft|version)s?\b", re.IGNORECASE)
_LEAD_IN_CHARS = 120
# A lead-in with the post on the same line: "Here is your post: We ship weekly."
_INLINE_LEAD_IN = re.compile(
    r"^(?:here is|here's|below is) (?:your|the|a)\b[^:\n]{0,60}\b(?:post|draft):[ \t]+",
    re.IGNORECASE,
)


def strip_separators(text: str) -> str:
    """`text` without rule lines, fence lines and a lead-in line at its start."""
    text = _FENCE.sub("", _RULE.sub("", text)).strip()
    first, _, rest = text.partition("\n")
    if _is_lead_in(first.strip(_MARKS)):
        return rest.strip()
    return _INLINE_LEAD_IN.sub("", text)


def _is_lead_in(line: str) -> bool:
    return (
        line.endswith(":")
        and len(line) <= _LEAD_IN_CHARS
        and _LEAD_IN_OPENING.match(line) is not None
        and _LEAD_IN_SUBJECT.search(line) is not None
    )
