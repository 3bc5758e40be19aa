"""Posts marked up in an ordinary web page: h-entry microformats first (the
IndieWeb convention, explicit about content and date), else <article> elements."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urljoin

from lxml import etree, html  # type: ignore[import-untyped,unused-ignore]

from socialgen.sources.fetch import FetchedPage
from socialgen.sources.profiles.base import RawPost
from socialgen.sources.profiles.dates import parse_date
from socialgen.sources.profiles.text import Element, element_text

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


# Outermost entries only: an h-entry can quote another (a reply context, a repost).
_ENTRIES = etree.XPath(
    f"//*[{_has_class('h-entry')} and not(ancestor::*[{_has_class('h-entry')}])]"
)
_CONTENT = [
    etree.XPath(f".//*[{_has_class(name)}]") for name in ("e-content", "p-summary", "p-name")
]
_PUBLISHED = etree.XPath(f".//*[{_has_class('dt-published')}]")
_PERMALINK = etree.XPath(f".//*[{_has_class('u-url')}]")
_ARTICLES = etree.XPath("//article[not(ancestor::article)]")
_ARTICLE_LINK = etree.XPath(
    ".//a[contains(concat(' ', @rel, ' '), ' bookmark ')] | .//h1//a | .//h2//a | .//h3//a"
)
# The byline, date line, tags and share buttons around an article's words.
_ARTICLE_CHROME = frozenset({"header", "footer", "nav", "aside", "form", "time"})


def looks_like_html(page: FetchedPage) -> bool:
    if page.media_type:
        return page.media_type in HTML_TYPES
    return page.body.lstrip()[:1] == b"<"  # no Content-Type: judge as browsers do


def parse_document(page: FetchedPage) -> Element:
    """The page's element tree. Parsed from UTF-8 bytes: `page.text` already chose
    the encoding, and lxml refuses str input that carries an XML encoding declaration."""
    parser = html.HTMLParser(encoding="utf-8", no_network=True, remove_comments=True)
    try:
        return html.document_fromstring(page.text.encode("utf-8"), parser=parser)
    except (etree.ParserError, ValueError):
        return html.fragment_fromstring("", create_parent="div")  # an empty page


def entries(document: Element, base_url: str) -> list[RawPost]:
    """The posts on a page, in page order; [] when it marks none up."""
    found = _ENTRIES(document)
    if found:
        return [_h_entry(entry, base_url) for entry in found]
    return [_article(article, base_url) for article in _ARTICLES(document)]


def _h_entry(entry: Element, base_url: str) -> RawPost:
    text = ""
    for query in _CONTENT:
        matches = _own(entry, query(entry))
        if matches and (text := element_text(matches[0])):
            break
    else:
        text = element_text(entry)  # microformats' implied content: the whole entry
    published = _own(entry, _PUBLISHED(entry))
    moment = parse_date(_date_value(published[0])) if published else _first_time(entry)
    links = _own(entry, _PERMALINK(entry))
    href = (links[0].get("href") or links[0].text_content()).strip() if links else ""
    return RawPost(text=text, published=moment, url=urljoin(base_url, href) if href else None)


def _article(article: Element, base_url: str) -> RawPost:
    # Without the chrome; an article that is all header (a teaser card) keeps it.
    text = element_text(article, skip=_ARTICLE_CHROME) or element_text(article)
    links = _ARTICLE_LINK(article)
    href = (links[0].get("href") or "").strip() if links else ""
    return RawPost(
        text=text, published=_first_time(article), url=urljoin(base_url, href) if href else None
    )


def _own(entry: Element, properties: list[Element]) -> list[Element]:
    """The properties of `entry` itself, not of a microformat inside it: the author's
    h-card has a u-url (their home page), a quoted h-cite its own dt-published."""
    return [prop for prop in properties if _nearest_root(prop) is entry]


def _nearest_root(element: Element) -> Element | None:
    """The closest element that is, or contains, `element` and is a microformat root
    (a class starting with h-)."""
    for candidate in (element, *element.iterancestors()):
        if any(name.startswith("h-") for name in (candidate.get("class") or "").split()):
            return candidate
    return None


def _date_value(element: Element) -> str:
    """A dt-* property's value: datetime on <time>, title on <abbr>, value on <data>,
    else the text (the microformats2 parsing rules, minus value-class patterns)."""
    for attribute in ("datetime", "title", "value"):
        value = element.get(attribute)
        if value:
            return str(value)
    return str(element.text_content())


def _first_time(container: Element) -> datetime | None:
    for time in container.iter("time"):
        moment = parse_date(time.get("datetime") or time.text_content())
        if moment is not None:
            return moment
    return None
