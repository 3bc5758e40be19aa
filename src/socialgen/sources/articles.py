"""The main text of a web article: fetched through the guard, extracted by trafilatura."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from dataclasses import dataclass

from socialgen.sources.fetch import FetchedPage, SourceError, fetch

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
# trafilatura falls back to whatever text a page has (a menu, a login button); below
# this there is nothing worth summarising.
MIN_TEXT_CHARS = 100
_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


@dataclass(frozen=True)
class Article:
    url: str  # as asked for
    final_url: str  # after redirects
    title: str  # "" when the page names none
    text: str
    author: str | None = None
    date: str | None = None  # as trafilatura gives it, usually YYYY-MM-DD


async def extract_article(url: str, *, allow_private: bool = False) -> Article:
    """Fetch `url` and extract its main text (no navigation, comments or footer).

    Raises a `BadRequest` (usually `SourceError`) when the page cannot be fetched,
    is not HTML, or has no extractable main text.
    """
    page = await fetch(url, accept=HTML_ACCEPT, allow_private=allow_private)
    if not _looks_like_html(page):
        shown = page.media_type or "no content type"
        raise SourceError(f"Could not read {url}: it is not a web page ({shown})")
    # trafilatura parses and scores the whole tree: CPU-bound, so off the event loop.
    fields = await asyncio.to_thread(_extract, page.text, page.final_url)
    if fields is None or len(fields["text"]) < MIN_TEXT_CHARS:
        raise SourceError(f"Could not read {url}: no article text found on the page")
    return Article(
        url=url,
        final_url=page.final_url,
        title=_clean_line(fields["title"]),
        text=fields["text"],
        author=_clean_line(fields["author"]) or None,
        date=fields["date"] or None,
    )


def _extract(html: str, url: str) -> dict[str, str] | None:
    """trafilatura's extraction, normalised. Blocking; imported here because it is
    heavy and only needed once a page is actually read."""
    from trafilatura import bare_extraction
    from trafilatura.settings import Document

    document = bare_extraction(html, url=url, include_comments=False, with_metadata=True)
    if not isinstance(document, Document):
        return None
    return {
        "title": document.title or "",
        "author": document.author or "",
        "date": document.date or "",
        "text": clean_text(document.text or ""),
    }


def clean_text(text: str) -> str:
    """NFKC (ligatures, full-width forms, non-breaking spaces) and at most one blank
    line in a row, so the text spends the model's context on words."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n")
    text = _TRAILING_SPACE.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _clean_line(value: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", value).split())


def _looks_like_html(page: FetchedPage) -> bool:
    if page.media_type:
        return page.media_type in HTML_TYPES
    # No Content-Type at all: judge by the first bytes, as browsers do.
    return page.body.lstrip()[:1] == b"<"
