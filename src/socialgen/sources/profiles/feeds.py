"""RSS 2.0 / RSS 1.0 and Atom feeds, and finding the feed an HTML page links.

Feeds are parsed by lxml with entity expansion, DTD loading and network access
all off: an `<!ENTITY xxe SYSTEM "file:///etc/passwd">` or a billion-laughs
declaration stays an unexpanded reference that contributes no text.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml import etree  # type: ignore[import-untyped,unused-ignore]

from socialgen.sources.fetch import FetchedPage, SourceError
from socialgen.sources.profiles.base import RawPost
from socialgen.sources.profiles.dates import parse_date
from socialgen.sources.profiles.text import Element, element_text, html_to_text, local_name

FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/rdf+xml",
        "application/x-rss+xml",
        "application/xml",
        "text/xml",
    }
)
FEED_LINK_TYPES = frozenset({"application/rss+xml", "application/atom+xml"})
FEED_ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9"

RSS_NAMESPACES = frozenset({"", "http://purl.org/rss/1.0/"})  # 2.0 has none, 1.0 (RDF) its own
ATOM_NAMESPACES = frozenset({"http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#"})
CONTENT_NS = frozenset({"http://purl.org/rss/1.0/modules/content/"})
DC_NS = frozenset({"http://purl.org/dc/elements/1.1/"})

# A feed served as text/plain or text/html still starts like one.
_FEED_START = re.compile(rb"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(rss|feed|rdf:RDF)[\s>]", re.S)


def is_feed(page: FetchedPage) -> bool:
    if page.media_type in FEED_TYPES:
        return True
    return _FEED_START.match(page.body.removeprefix(b"\xef\xbb\xbf")[:4096]) is not None


def parse(page: FetchedPage) -> list[RawPost]:
    """The entries of an RSS or Atom feed, in feed order. Raises `SourceError` when
    the page is not a feed."""
    parser = etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        huge_tree=False,
        recover=True,  # real feeds carry stray `&` and bad bytes; keep what parses
        remove_comments=True,
        remove_pis=True,
    )
    try:
        root = etree.fromstring(page.body, parser)
    except etree.XMLSyntaxError:
        root = None
    kind = local_name(root) if root is not None else None
    if kind in ("rss", "rdf"):
        items = [el for el in root.iter() if _named(el, RSS_NAMESPACES, "item")]
        return [_rss_item(item, page.final_url) for item in items]
    if kind == "feed":
        entries = [el for el in root if _named(el, ATOM_NAMESPACES, "entry")]
        return [_atom_entry(entry, page.final_url) for entry in entries]
    raise SourceError(f"Could not read {page.url}: it is not an RSS or Atom feed")


def discover(document: Element, base_url: str) -> str | None:
    """The URL of the feed an HTML page announces with <link rel="alternate">.

    A blog often announces its comments feed too; the posts feed is preferred.
    """
    found: list[tuple[bool, str]] = []
    for link in document.iter("link"):
        rels = (link.get("rel") or "").lower().split()
        kind = (link.get("type") or "").split(";", 1)[0].strip().lower()
        href = (link.get("href") or "").strip()
        if "alternate" in rels and kind in FEED_LINK_TYPES and href:
            is_comments = "comment" in (link.get("title") or "").lower()
            found.append((is_comments, urljoin(_base(document, base_url), href)))
    if not found:
        return None
    return min(found, key=lambda item: item[0])[1]  # stable: first non-comments feed


def _rss_item(item: Element, base_url: str) -> RawPost:
    body = _first(item, (CONTENT_NS, "encoded"), (RSS_NAMESPACES, "description"))
    text = html_to_text(_text(body)) if body is not None else ""
    if not text.strip():
        text = _text(_child(item, RSS_NAMESPACES, "title"))
    published = _first(item, (RSS_NAMESPACES, "pubDate"), (DC_NS, "date"))
    link = _text(_child(item, RSS_NAMESPACES, "link")).strip()
    guid = _child(item, RSS_NAMESPACES, "guid")
    if not link and guid is not None and (guid.get("isPermaLink") or "true") == "true":
        link = _text(guid).strip()
    return RawPost(
        text=text,
        published=parse_date(_text(published)),
        url=urljoin(base_url, link) if link else None,
    )


def _atom_entry(entry: Element, base_url: str) -> RawPost:
    text = ""
    for name in ("content", "summary"):
        element = _child(entry, ATOM_NAMESPACES, name)
        if element is not None and not element.get("src"):  # src: content lives elsewhere
            text = _atom_text(element)
        if text.strip():
            break
    else:
        text = _atom_text(_child(entry, ATOM_NAMESPACES, "title"))
    published = _first(entry, (ATOM_NAMESPACES, "published"), (ATOM_NAMESPACES, "updated"))
    return RawPost(
        text=text, published=parse_date(_text(published)), url=_atom_link(entry, base_url)
    )


def _atom_text(element: Element | None) -> str:
    """Atom's text constructs: type="text" (the default), "html" or "xhtml"."""
    if element is None:
        return ""
    kind = (element.get("type") or "text").lower()
    if kind in ("xhtml", "application/xhtml+xml"):
        return element_text(element)  # inline XHTML elements, walked as they are
    if kind in ("html", "text/html"):
        return html_to_text(_text(element))
    return _text(element)


def _atom_link(entry: Element, base_url: str) -> str | None:
    for link in entry:
        href = str(link.get("href") or "").strip() if isinstance(link.tag, str) else ""
        rel = str(link.get("rel") or "alternate") if href else ""
        if rel == "alternate" and _named(link, ATOM_NAMESPACES, "link"):
            return urljoin(base_url, href)
    return None


def _child(parent: Element, namespaces: frozenset[str], name: str) -> Element | None:
    for child in parent:
        if _named(child, namespaces, name):
            return child
    return None


def _first(parent: Element, *wanted: tuple[frozenset[str], str]) -> Element | None:
    """The first child matching the first of `wanted` that any child matches.

    Not `a or b`: an lxml element without children is falsy.
    """
    for namespaces, name in wanted:
        found = _child(parent, namespaces, name)
        if found is not None:
            return found
    return None


def _named(element: Element, namespaces: frozenset[str], name: str) -> bool:
    if not isinstance(element.tag, str):
        return False
    qname = etree.QName(element)
    return bool(qname.localname == name and (qname.namespace or "") in namespaces)


def _text(element: Element | None) -> str:
    """The character data of `element`, skipping unexpanded entity references."""
    if element is None:
        return ""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _base(document: Element, base_url: str) -> str:
    for base in document.iter("base"):
        href = str(base.get("href") or "").strip()
        if href:
            return urljoin(base_url, href)
    return base_url
