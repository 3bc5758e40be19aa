"""sources.profiles: importing a profile's posts through each adapter.

Every source is a real threaded HTTP server on 127.0.0.1 (reached with the guard's
test allowance); Bluesky's AppView and the LinkedIn service are pointed at it by
their environment variables. A fake resolver answers every name lookup, so
nothing here resolves a real name or touches the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import pytest

from socialgen.app.runtime import Runtime
from socialgen.kit.errors import BadRequest
from socialgen.sources import guard
from socialgen.sources.fetch import SourceError
from socialgen.sources.guard import UrlNotAllowed
from socialgen.sources.profiles import (
    LinkedInNeedsEndpoint,
    NoPostsFound,
    ProfilePost,
    import_profile_posts,
)

T = TypeVar("T")
RSS = "application/rss+xml; charset=utf-8"
ATOM = "application/atom+xml"
JSON = "application/json; charset=utf-8"


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def posts_of(url: str | None, limit: int = 20) -> list[ProfilePost]:
    # The settings a command or request would hand in: a Runtime made now.
    return run(import_profile_posts(url, Runtime().settings, limit=limit))


# --- no real DNS, no allowance unless a test asks -------------------------------------


@pytest.fixture(autouse=True)
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    answers: dict[str, list[str]] = {}

    def resolve(host: str, port: int) -> list[str]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return answers[host]

    monkeypatch.setattr(guard, "resolve", resolve)
    for name in (
        guard.ALLOW_PRIVATE_ENV,
        "SOCIALGEN_BLUESKY_APPVIEW",
        "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT",
    ):
        monkeypatch.delenv(name, raising=False)
    return answers


@pytest.fixture
def allow_private(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")


# --- a local HTTP server; routes match the path, the query is recorded ----------------

Route = Callable[["Handler"], None]


@dataclass
class Server:
    base: str = ""
    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)  # path with query, in order
    accept: dict[str, str] = field(default_factory=dict)  # path -> last Accept header

    def url(self, path: str) -> str:
        return self.base + path

    def serve(self, path: str, body: str | bytes, content_type: str = "text/html") -> None:
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = lambda handler: handler.respond(data, content_type)

    def serve_json(self, path: str, value: object) -> None:
        self.serve(path, json.dumps(value), JSON)

    def query(self, path: str) -> dict[str, list[str]]:
        """The query of the last request to `path`."""
        asked = [seen for seen in self.seen if urlsplit(seen).path == path]
        assert asked, f"{path} was not requested; seen: {self.seen}"
        return parse_qs(urlsplit(asked[-1]).query)

    def paths(self) -> list[str]:
        return [urlsplit(seen).path for seen in self.seen]


class Handler(BaseHTTPRequestHandler):
    server_state: Server

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server_state.seen.append(self.path)
        self.server_state.accept[path] = self.headers.get("Accept", "")
        route = self.server_state.routes.get(path)
        if route is None:
            self.send_error(404, "Not Found")
            return
        # The client may hang up mid-answer (the size cap): not an error here.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            route(self)

    def respond(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server()
    handler = type("BoundHandler", (Handler,), {"server_state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


# --- RSS and Atom ---------------------------------------------------------------------

RSS_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Dana's notes</title>
  <link>https://dana.example/</link>
  <atom:link href="https://dana.example/feed.xml" rel="self" type="application/rss+xml"/>
  <item>
    <title>Weekly trains</title>
    <link>https://dana.example/posts/weekly-trains</link>
    <pubDate>Mon, 18 Mar 2024 23:30:00 -0500</pubDate>
    <description>Short teaser</description>
    <content:encoded><![CDATA[<p>We ship every Friday.</p>
      <p>Nothing holds the train: not even a
      <a href="https://dana.example/flags">feature ﬂag</a> debate.</p>
      <script>track()</script>]]></content:encoded>
  </item>
  <item>
    <title>Older note</title>
    <guid isPermaLink="true">https://dana.example/posts/older</guid>
    <pubDate>Fri, 01 Mar 2024 08:00:00 GMT</pubDate>
    <description>&lt;p&gt;Line one&lt;br&gt;line two&amp;nbsp;here&lt;/p&gt;</description>
  </item>
  <item>
    <title>Newest</title>
    <link>/posts/newest</link>
    <dc:date>2024-04-02T10:00:00Z</dc:date>
    <description>Plain text, &amp; an ampersand.</description>
  </item>
  <item>
    <title></title>
    <pubDate>Sat, 02 Mar 2024 08:00:00 GMT</pubDate>
    <description><![CDATA[<p>   </p><img src="x.png">]]></description>
  </item>
</channel>
</rss>
"""


def test_rss_feed(server: Server, allow_private: None) -> None:
    server.serve("/feed.xml", RSS_FEED, RSS)
    posts = posts_of(server.url("/feed.xml"))
    assert posts == [
        ProfilePost("Plain text, & an ampersand.", "2024-04-02", server.url("/posts/newest")),
        ProfilePost(
            # content:encoded wins over the teaser; the ligature is NFKC'd, the script gone
            "We ship every Friday.\n\nNothing holds the train: not even a feature flag debate.",
            "2024-03-18",  # the author's calendar day, not UTC's (19 March)
            "https://dana.example/posts/weekly-trains",
        ),
        ProfilePost("Line one\nline two here", "2024-03-01", "https://dana.example/posts/older"),
    ]  # the image-only item is dropped
    assert server.accept["/feed.xml"].startswith("application/rss+xml, application/atom+xml")


ATOM_FEED = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Sam writes</title>
  <id>tag:sam.example,2024:feed</id>
  <updated>2024-05-10T12:00:00Z</updated>
  <entry>
    <title>Text entry</title>
    <link rel="alternate" href="https://sam.example/2024/05/text"/>
    <id>tag:sam.example,2024:1</id>
    <published>2024-05-01T09:00:00+02:00</published>
    <updated>2024-05-09T09:00:00Z</updated>
    <summary type="text">Tags like &lt;b&gt; stay literal in text.</summary>
  </entry>
  <entry>
    <title>HTML entry</title>
    <link rel="replies" href="https://sam.example/2024/05/html/comments"/>
    <link href="https://sam.example/2024/05/html"/>
    <id>tag:sam.example,2024:2</id>
    <updated>2024-05-10T12:00:00Z</updated>
    <content type="html">&lt;p&gt;First paragraph.&lt;/p&gt;
      &lt;ul&gt; &lt;li&gt;one&lt;/li&gt; &lt;li&gt;two&lt;/li&gt; &lt;/ul&gt;</content>
  </entry>
  <entry>
    <title>XHTML entry</title>
    <id>tag:sam.example,2024:3</id>
    <published>2024-04-20</published>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">
      <p>Inline <em>XHTML</em>.</p><p>Second.</p></div></content>
  </entry>
  <entry>
    <title>Only a title</title>
    <id>tag:sam.example,2024:4</id>
    <published>2024-04-01T00:00:00Z</published>
  </entry>
</feed>
"""


def test_atom_feed(server: Server, allow_private: None) -> None:
    server.serve("/atom", ATOM_FEED, ATOM)
    posts = posts_of(server.url("/atom"))
    assert posts == [
        ProfilePost(
            "First paragraph.\n\none\ntwo", "2024-05-10", "https://sam.example/2024/05/html"
        ),
        ProfilePost(
            "Tags like <b> stay literal in text.", "2024-05-01", "https://sam.example/2024/05/text"
        ),
        ProfilePost("Inline XHTML.\n\nSecond.", "2024-04-20", None),
        ProfilePost("Only a title", "2024-04-01", None),
    ]


def test_limit_keeps_the_newest(server: Server, allow_private: None) -> None:
    server.serve("/atom", ATOM_FEED, ATOM)
    assert [post.date for post in posts_of(server.url("/atom"), limit=2)] == [
        "2024-05-10",
        "2024-05-01",
    ]
    with pytest.raises(BadRequest, match="between 1 and 100"):
        posts_of(server.url("/atom"), limit=0)


def test_feed_served_as_plain_text_is_recognised(server: Server, allow_private: None) -> None:
    server.serve("/feed", ATOM_FEED, "text/plain")
    assert len(posts_of(server.url("/feed"))) == 4


def test_feed_entities_are_never_expanded(server: Server, allow_private: None) -> None:
    hostile = """<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
  <!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<rss version="2.0"><channel><item>
  <pubDate>Tue, 05 Mar 2024 10:00:00 GMT</pubDate>
  <description>Before &xxe; middle &lol3; after</description>
</item></channel></rss>"""
    server.serve("/evil.xml", hostile, RSS)
    [post] = posts_of(server.url("/evil.xml"))
    assert post.content == "Before middle after"
    assert "root:" not in post.content and "lol" not in post.content


# --- HTML pages -----------------------------------------------------------------------


def test_html_page_linking_a_feed(server: Server, allow_private: None) -> None:
    page = """<!doctype html><html><head><title>Dana</title>
    <link rel="alternate" type="application/rss+xml" title="Comments Feed" href="/comments.xml">
    <link rel="alternate" type="application/rss+xml; charset=utf-8" title="Dana" href="feed.xml">
    </head><body><p>Welcome to my site.</p></body></html>"""
    server.serve("/about/", page)
    server.serve("/about/feed.xml", RSS_FEED, RSS)
    posts = posts_of(server.url("/about/"))
    assert [post.date for post in posts] == ["2024-04-02", "2024-03-18", "2024-03-01"]
    assert server.paths() == ["/about/", "/about/feed.xml"]  # not the comments feed


def test_linked_feed_broken_falls_back_to_page_markup(server: Server, allow_private: None) -> None:
    page = """<html><head><link rel="alternate" type="application/atom+xml" href="/gone.atom">
    </head><body><article><p>On the page itself.</p>
    <time datetime="2024-02-02T10:00:00Z">2 Feb</time></article></body></html>"""
    server.serve("/blog", page)
    assert posts_of(server.url("/blog")) == [ProfilePost("On the page itself.", "2024-02-02", None)]
    assert server.paths() == ["/blog", "/gone.atom"]


def test_linked_feed_broken_and_no_markup_reports_the_feed(
    server: Server, allow_private: None
) -> None:
    page = """<html><head><link rel="alternate" type="application/atom+xml" href="/gone.atom">
    </head><body><p>Nothing marked up.</p></body></html>"""
    server.serve("/blog", page)
    with pytest.raises(SourceError, match=r"gone\.atom: the server answered 404"):
        posts_of(server.url("/blog"))


H_ENTRY_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Notes</title></head>
<body>
<nav><a href="/">Home</a></nav>
<div class="h-feed">
  <div class="h-entry">
    <span class="p-author h-card"><a class="u-url p-name" href="/">Dana</a>
      <time class="dt-published" datetime="2001-01-01">born</time></span>
    <a class="u-url" href="/notes/2">
      <time class="dt-published" datetime="2024-06-02T08:15:00+02:00">June 2</time></a>
    <div class="e-content"><p>Second note, with <strong>bold</strong> words.</p>
      <p>And a second paragraph.</p></div>
    <div class="h-cite">quoted:
      <div class="h-entry"><p class="e-content">NESTED-QUOTE</p></div></div>
  </div>
  <article class="h-entry">
    <h2 class="p-name">Only a name here</h2>
    <abbr class="dt-published" title="2024-06-05">5 June</abbr>
    <a class="u-url" href="https://notes.example/notes/3">link</a>
  </article>
  <div class="h-entry">
    <div class="e-content">Undated entry.</div>
  </div>
</div>
</body></html>
"""


def test_h_entry_page(server: Server, allow_private: None) -> None:
    server.serve("/notes", H_ENTRY_PAGE)
    posts = posts_of(server.url("/notes"))
    assert posts == [
        ProfilePost("Only a name here", "2024-06-05", "https://notes.example/notes/3"),
        ProfilePost(
            "Second note, with bold words.\n\nAnd a second paragraph.",
            "2024-06-02",
            server.url("/notes/2"),
        ),
    ]  # the nested quote is not a post; the undated entry is dropped as others have dates


ARTICLE_PAGE = """<html><body>
<header><h1>Field notes</h1></header>
<main>
  <article>
    <header><h2><a href="/p/older">An older one</a></h2>
      <time datetime="2023-11-30">30 November 2023</time></header>
    <p>Older   text
       across lines.</p>
    <footer>Tags: misc <button>Share</button></footer>
  </article>
  <article>
    <h2><a href="/p/newer">A newer one</a></h2>
    <p>Posted <time datetime="2024-01-15T18:00:00Z">15 Jan</time></p>
    <p>Newer text.</p>
    <article><p>A comment, nested: part of the post above.</p></article>
  </article>
</main></body></html>"""


def test_article_page(server: Server, allow_private: None) -> None:
    server.serve("/field-notes", ARTICLE_PAGE)
    posts = posts_of(server.url("/field-notes"))
    assert posts == [
        ProfilePost(
            "A newer one\n\nPosted\n\nNewer text.\n\nA comment, nested: part of the post above.",
            "2024-01-15",
            server.url("/p/newer"),
        ),
        ProfilePost("Older text across lines.", "2023-11-30", server.url("/p/older")),
    ]


def test_undated_posts_get_todays_date_when_none_has_one(
    server: Server, allow_private: None
) -> None:
    server.serve("/plain", "<article><p>First.</p></article><article><p>Second.</p></article>")
    today = datetime.now(UTC).date().isoformat()
    assert posts_of(server.url("/plain")) == [
        ProfilePost("First.", today, None),
        ProfilePost("Second.", today, None),
    ]


# --- Mastodon -------------------------------------------------------------------------

ACCOUNT = {"id": "109", "username": "dana", "acct": "dana", "url": "https://x/@dana"}


def _status(status_id: str, content: str, created: str, **extra: object) -> dict[str, object]:
    status: dict[str, object] = {
        "id": status_id,
        "created_at": created,
        "content": content,
        "url": f"https://mastodon.example/@dana/{status_id}",
        "uri": f"https://mastodon.example/users/dana/statuses/{status_id}",
        "in_reply_to_id": None,
        "in_reply_to_account_id": None,
        "reblog": None,
        "spoiler_text": "",
        "visibility": "public",
    }
    status.update(extra)
    return status


STATUSES = [
    _status(
        "5",
        '<p>Shipping today! Thanks <span class="h-card"><a href="https://x/@sam" class="u-url '
        'mention">@<span>sam</span></a></span></p><p>Notes: <a href="https://dana.example/'
        'release/notes-for-2024"><span class="invisible">https://</span><span class="ellipsis">'
        'dana.example/release/</span><span class="invisible">notes-for-2024</span></a> '
        '<a href="https://x/tags/release" class="mention hashtag">#<span>release</span></a></p>',
        "2024-06-10T09:00:00.000Z",
    ),
    _status("4", "<p>Boosted someone</p>", "2024-06-09T09:00:00.000Z", reblog={"id": "77"}),
    _status(
        "3",
        "<p>@sam agreed</p>",
        "2024-06-08T09:00:00.000Z",
        in_reply_to_id="70",
        in_reply_to_account_id="222",
    ),
    _status(
        "2",
        "<p>A thread, part two</p>",
        "2024-06-07T09:00:00.000Z",
        in_reply_to_id="1",
        in_reply_to_account_id="109",
    ),
    _status("1", "<p>A thread, part one<br>with a break</p>", "2024-06-07T08:00:00.000Z"),
    _status("0", "", "2024-06-01T08:00:00.000Z"),  # media only
]


def _mastodon(server: Server) -> None:
    server.serve_json("/api/v1/accounts/lookup", ACCOUNT)
    server.serve_json("/api/v1/accounts/109/statuses", STATUSES)


@pytest.mark.parametrize("path", ["/@dana", "/@dana/", "/users/dana"])
def test_mastodon_profile(server: Server, allow_private: None, path: str) -> None:
    _mastodon(server)
    posts = posts_of(server.url(path), limit=10)
    assert posts == [
        ProfilePost(
            "Shipping today! Thanks @sam\n\n"
            "Notes: https://dana.example/release/notes-for-2024 #release",
            "2024-06-10",
            "https://mastodon.example/@dana/5",
        ),
        ProfilePost("A thread, part two", "2024-06-07", "https://mastodon.example/@dana/2"),
        ProfilePost(
            "A thread, part one\nwith a break", "2024-06-07", "https://mastodon.example/@dana/1"
        ),
    ]  # the boost and the reply to someone else are skipped
    assert server.query("/api/v1/accounts/lookup") == {"acct": ["dana"]}
    assert server.accept["/api/v1/accounts/lookup"] == "application/json"
    assert server.query("/api/v1/accounts/109/statuses") == {
        "exclude_replies": ["true"],
        "exclude_reblogs": ["true"],
        "limit": ["10"],
    }


def test_at_path_without_mastodon_api_is_read_as_a_page(
    server: Server, allow_private: None
) -> None:
    server.serve("/@dana", H_ENTRY_PAGE)  # e.g. a Medium-style /@name page
    posts = posts_of(server.url("/@dana"))
    assert [post.date for post in posts] == ["2024-06-05", "2024-06-02"]
    assert server.paths() == ["/api/v1/accounts/lookup", "/@dana"]


# --- Bluesky --------------------------------------------------------------------------


def _feed_item(rkey: str, text: str, created: str, **extra: object) -> dict[str, object]:
    item: dict[str, object] = {
        "post": {
            "uri": f"at://did:plc:abc123/app.bsky.feed.post/{rkey}",
            "cid": "bafyrei" + rkey,
            "author": {"did": "did:plc:abc123", "handle": "dana.bsky.social"},
            "record": {"$type": "app.bsky.feed.post", "text": text, "createdAt": created},
            "indexedAt": created,
        }
    }
    item.update(extra)
    return item


AUTHOR_FEED = {
    "feed": [
        _feed_item(
            "3kpin",
            "Pinned intro post",
            "2024-01-01T10:00:00.000Z",
            reason={"$type": "app.bsky.feed.defs#reasonPin"},
        ),
        _feed_item(
            "3krepost",
            "Someone else's words",
            "2024-06-11T10:00:00.000Z",
            reason={"$type": "app.bsky.feed.defs#reasonRepost", "by": {"handle": "dana"}},
        ),
        _feed_item("3knew", "Fresh thoughts\n\non shipping <3", "2024-06-10T22:00:00.000Z"),
        _feed_item("3kimage", "", "2024-06-09T10:00:00.000Z"),
    ],
    "cursor": "2024-06-09T10:00:00.000Z",
}


def test_bluesky_profile(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_BLUESKY_APPVIEW", server.base + "/")
    server.serve_json("/xrpc/app.bsky.feed.getAuthorFeed", AUTHOR_FEED)
    posts = posts_of("https://bsky.app/profile/dana.bsky.social", limit=5)
    assert posts == [
        ProfilePost(
            "Fresh thoughts\n\non shipping <3",
            "2024-06-10",
            "https://bsky.app/profile/dana.bsky.social/post/3knew",
        ),
        ProfilePost(
            "Pinned intro post",
            "2024-01-01",
            "https://bsky.app/profile/dana.bsky.social/post/3kpin",
        ),
    ]  # the repost is skipped, the image-only post dropped
    assert server.query("/xrpc/app.bsky.feed.getAuthorFeed") == {
        "actor": ["dana.bsky.social"],
        "limit": ["10"],
        "filter": ["posts_no_replies"],
    }


def test_bluesky_unknown_handle(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_BLUESKY_APPVIEW", server.base)
    with pytest.raises(SourceError, match=r"Could not read the Bluesky profile nobody\.example"):
        posts_of("https://bsky.app/profile/nobody.example")


def test_bluesky_link_that_is_not_a_profile() -> None:
    with pytest.raises(BadRequest, match=r"not a Bluesky profile.*bsky\.app/profile/<handle>"):
        posts_of("https://bsky.app/search?q=shipping")


# --- LinkedIn -------------------------------------------------------------------------

LINKEDIN_REFUSAL = (
    "LinkedIn does not show posts to anonymous visitors: set "
    "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT to a profile-scraping service to import from LinkedIn"
)


def test_linkedin_without_endpoint_is_refused_clearly() -> None:
    with pytest.raises(LinkedInNeedsEndpoint) as error:
        posts_of("https://www.linkedin.com/in/dana-whitfield/")
    assert error.value.message == LINKEDIN_REFUSAL
    assert error.value.status_code == 422


def test_linkedin_through_the_configured_endpoint(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT", server.url("/scrape?profile={url}&n={limit}")
    )
    server.serve_json(
        "/scrape",
        {
            "posts": [
                {"text": "Older post", "date": "2024-05-01"},
                {"commentary": "Newest post", "postedAt": 1718000000000, "postUrl": "https://l/1"},
                {"content": "Middle post", "publishedAt": "2024-05-20T10:00:00Z"},
                {"text": "", "date": "2024-05-21"},
            ]
        },
    )
    posts = posts_of("https://de.linkedin.com/company/example-inc", limit=5)
    assert posts == [
        ProfilePost("Newest post", "2024-06-10", "https://l/1"),
        ProfilePost("Middle post", "2024-05-20", None),
        ProfilePost("Older post", "2024-05-01", None),
    ]
    assert server.query("/scrape") == {
        "profile": ["https://de.linkedin.com/company/example-inc"],
        "n": ["5"],
    }
    assert "profile=https%3A%2F%2Fde.linkedin.com%2Fcompany%2Fexample-inc&" in server.seen[0]


def test_linkedin_endpoint_answering_a_list(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT", server.url("/li?u={url}&key=SECRET"))
    server.serve_json("/li", [{"text": "Only post", "date": "Tue, 04 Jun 2024 09:00:00 GMT"}])
    assert posts_of("https://www.linkedin.com/in/dana") == [
        ProfilePost("Only post", "2024-06-04", None)
    ]


def test_linkedin_endpoint_failure_does_not_leak_the_endpoint(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT", server.url("/down?u={url}&key=SECRET")
    )
    with pytest.raises(SourceError) as error:
        posts_of("https://www.linkedin.com/in/dana")
    assert error.value.message == (
        "The LinkedIn profile service failed for https://www.linkedin.com/in/dana: "
        "the server answered 404 Not Found"
    )


def test_linkedin_link_that_is_not_a_profile() -> None:
    with pytest.raises(BadRequest, match=r"not a LinkedIn profile"):
        posts_of("https://www.linkedin.com/feed/")


# --- bad input ------------------------------------------------------------------------

MISSING = "The profile URL is required as a query parameter (profileUrl)"


@pytest.mark.parametrize("url", [None, "", "   "])
def test_missing_url(url: str | None) -> None:
    with pytest.raises(BadRequest) as error:
        posts_of(url)
    assert error.value.message == MISSING
    assert error.value.status_code == 400


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mastodon.social/@dana", r"must be a full link starting with https://"),
        ("not a url", r"must be a full link starting with https://"),
        ("ftp://example.com/feed.xml", r"must start with http:// or https://, not ftp://"),
        ("javascript://alert(1)", r"not javascript://"),
        ("https://", r"no host name"),
        ("https://example.com:99999/", r"not a valid link \(Port out of range"),
        ("https://[::1/", r"not a valid link"),
        ("https://exa mple.com/", r"not a valid link \(space in the host name\)"),
        ("https://" + "a" * 2050 + ".com/", r"longer than 2048 characters"),
    ],
)
def test_malformed_url(url: str, message: str) -> None:
    with pytest.raises(BadRequest, match=message) as error:
        posts_of(url)
    assert error.value.status_code == 400


def test_private_address_refused_without_the_allowance(server: Server) -> None:
    server.serve("/feed.xml", RSS_FEED, RSS)
    with pytest.raises(UrlNotAllowed, match=r"127\.0\.0\.1 is a loopback address"):
        posts_of(server.url("/feed.xml"))
    assert server.seen == []


def test_name_resolving_to_a_private_address_refused(dns: dict[str, list[str]]) -> None:
    dns["intranet.example"] = ["10.0.0.5"]
    with pytest.raises(UrlNotAllowed, match=r"intranet\.example resolves to a private address"):
        posts_of("https://intranet.example/@dana")


def test_too_large_page(server: Server, allow_private: None) -> None:
    server.serve("/huge", "<p>" + "x" * 2_100_000 + "</p>")
    with pytest.raises(SourceError, match="larger than 2 MB"):
        posts_of(server.url("/huge"))


def test_page_without_posts(server: Server, allow_private: None) -> None:
    server.serve("/empty", "<html><body><h1>Hello</h1><p>Nothing to see.</p></body></html>")
    with pytest.raises(NoPostsFound) as error:
        posts_of(server.url("/empty"))
    assert error.value.message == f"No posts found at {server.url('/empty')}"
    assert error.value.status_code == 422


def test_empty_feed(server: Server, allow_private: None) -> None:
    server.serve("/feed.xml", '<rss version="2.0"><channel><title>t</title></channel></rss>', RSS)
    with pytest.raises(NoPostsFound, match="No posts found at"):
        posts_of(server.url("/feed.xml"))


def test_neither_page_nor_feed(server: Server, allow_private: None) -> None:
    server.serve("/data", b"\x89PNG\r\n", "image/png")
    with pytest.raises(SourceError, match=r"neither a web page nor a feed \(image/png\)"):
        posts_of(server.url("/data"))


def test_broken_xml_is_not_a_feed(server: Server, allow_private: None) -> None:
    server.serve("/feed.xml", "<html>not xml at all", "application/xml")
    with pytest.raises(SourceError, match="not an RSS or Atom feed"):
        posts_of(server.url("/feed.xml"))
