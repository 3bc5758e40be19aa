"""HTML to plain text for posts: paragraphs become blank lines, <br> and list
items line breaks, everything else inline with its whitespace collapsed.

The final NFKC and blank-line tidying happens once for every adapter, in
`profiles.__init__`; this module only removes the markup.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree, html  # type: ignore[import-untyped,unused-ignore]

# lxml ships no type hints: its elements are Any to mypy; this alias names them.
Element = Any

PARAGRAPH_TAGS = frozenset(
    {
        "p", "div", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
        "dl", "table", "section", "article", "header", "footer", "main", "aside", "nav",
        "figure", "figcaption", "hr", "address", "details", "summary", "form", "fieldset",
    }
)  # fmt: skip
LINE_TAGS = frozenset({"li", "tr", "dt", "dd", "caption"})
# Never text a reader sees as part of the post.
HIDDEN_TAGS = frozenset(
    {"script", "style", "template", "noscript", "head", "iframe", "object", "svg", "button"}
)
# Block boundaries are marked first and resolved after: the end of one <li> and the
# start of the next are one line break, not two; a paragraph edge next to a line
# edge is a paragraph break. (Control characters never appear in real post text.)
_LINE, _PARAGRAPH = "\x01", "\x02"
_BOUNDARIES = re.compile(r"[ \x01\x02]*[\x01\x02][ \x01\x02]*")
_MARKERS = re.compile(r"[\x01\x02]")
_SPACES = re.compile(r"\s+")
_RUNS_OF_SPACES = re.compile(r" {2,}")  # left where a dropped element sat between texts
_BLANK_RUNS = re.compile(r"\n{3,}")


def html_to_text(markup: str) -> str:
    """Plain text of an HTML fragment (a feed description, a Mastodon status)."""
    if not markup.strip():
        return ""
    try:
        root = html.fragment_fromstring(markup, create_parent="div")
    except (etree.ParserError, ValueError):
        return markup  # not parseable as HTML at all: take it as text
    return element_text(root)


def element_text(root: Element, *, skip: frozenset[str] = frozenset()) -> str:
    """Plain text inside `root` (not its tail), leaving out elements named in `skip`."""
    parts: list[str] = []
    _walk(root, parts, skip=HIDDEN_TAGS | skip, pre=False, with_tail=False)
    text = _BOUNDARIES.sub(_break, "".join(parts))
    lines = (_RUNS_OF_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def local_name(element: Element) -> str | None:
    """`p` for `<p>` and for XHTML's `{http://www.w3.org/1999/xhtml}p`; None for
    comments, processing instructions and unexpanded entities."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    return tag.rsplit("}", 1)[-1].lower()


def _walk(
    element: Element, parts: list[str], *, skip: frozenset[str], pre: bool, with_tail: bool
) -> None:
    name = local_name(element)
    if name is not None and name not in skip:
        inside_pre = pre or name == "pre"
        if name == "br":
            parts.append("\n")
        breaks = _PARAGRAPH if name in PARAGRAPH_TAGS else _LINE if name in LINE_TAGS else ""
        parts.append(breaks)
        if element.text:
            parts.append(_inline(element.text, inside_pre))
        for child in element:
            _walk(child, parts, skip=skip, pre=inside_pre, with_tail=True)
        parts.append(breaks)
    # An entity left unexpanded (see feeds.py) contributes nothing, its tail does.
    if with_tail and element.tail:
        parts.append(_inline(element.tail, pre))


def _break(run: re.Match[str]) -> str:
    return "\n\n" if _PARAGRAPH in run.group(0) else "\n"


def _inline(text: str, pre: bool) -> str:
    text = _MARKERS.sub("", text)
    # Source line breaks mean nothing in HTML outside <pre>; only tags break lines.
    return text if pre else _SPACES.sub(" ", text)
