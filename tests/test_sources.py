"""sources: the SSRF guard, the capped fetcher, article extraction, link finding.

Fetch tests run against a real threaded HTTP server on 127.0.0.1 (with the test
allowance for private URLs); guard tests swap the resolver for a fake one. Nothing
here resolves a real name or touches the internet.
"""

from __future__ import annotations

import asyncio
import gzip
import re
import socket
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import pytest

from socialgen.kit.errors import BadRequest
from socialgen.sources import fetch as fetch_module
from socialgen.sources import guard
from socialgen.sources.articles import clean_text, extract_article
from socialgen.sources.fetch import FetchedPage, SourceError, fetch
from socialgen.sources.guard import UrlNotAllowed, check_url, check_url_async
from socialgen.sources.urls import find_urls

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


# --- a fake resolver: no test may reach real DNS ---------------------------------


@pytest.fixture(autouse=True)
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names the fake resolver knows; any other name fails as if it did not exist."""
    answers: dict[str, list[str]] = {}

    def resolve(host: str, port: int) -> list[str]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return answers[host]

    monkeypatch.setattr(guard, "resolve", resolve)
    return answers


# --- a real local HTTP server --------------------------------------------------------

Route = Callable[["Handler"], None]


@dataclass
class Server:
    base: str
    routes: dict[str, Route]
    stop: threading.Event
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)
    finished: dict[str, threading.Event] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.base + path

    def paths(self) -> list[str]:
        return [path for path, _ in self.seen]


class Handler(BaseHTTPRequestHandler):
    server_state: Server  # set on the subclass made per fixture

    def do_GET(self) -> None:
        state = self.server_state
        state.seen.append((self.path, dict(self.headers.items())))
        route = state.routes.get(self.path)
        if route is None:
            self.send_error(404, "Not Found")
            return
        try:
            route(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, which several tests expect
        finally:
            state.finished.setdefault(self.path, threading.Event()).set()

    def respond(self, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, status: int = 302) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep the test output clean


@pytest.fixture
def server() -> Iterator[Server]:
    stop = threading.Event()
    state = Server(base="", routes={}, stop=stop)
    handler = type("BoundHandler", (Handler,), {"server_state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    stop.set()  # release handlers that wait or stream forever
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


ARTICLE_HTML = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Shipping weekly beats shipping perfect | Example Engineering Blog</title>
  <meta name="author" content="Dana Whitfield">
  <meta property="article:published_time" content="2024-03-18T09:00:00Z">
</head>
<body>
  <header>
    <nav class="site-nav">
      <a href="/">Home</a> <a href="/pricing">NAVIGATION-PRICING-LINK</a>
      <a href="/careers">Careers at Example</a>
    </nav>
  </header>
  <main>
    <article>
      <h1>Shipping weekly beats shipping perfect</h1>
      <p class="byline">By Dana Whitfield</p>
      <p>For three years our team released software twice a year. Every release was a
      marathon of merge conflicts, late nights and regressions that nobody could trace
      back to a single change. Customers waited months for fixes that took an hour to
      write.</p>
      <p>Last spring we moved to a weekly release train. The rule was simple: whatever
      is merged and green on Thursday ships on Friday morning, and anything that is not
      ready waits for the next train. Nobody holds the train for a feature.</p>
      <p>The first month was uncomfortable. We discovered how much of our process existed
      only to protect the big releases, and how little of it protected our users. We
      deleted the release checklist and replaced it with feature ﬂags and good alerts.</p>
      <p>Twelve months later the numbers speak for themselves: incidents per release fell
      by two thirds, the median time from merge to production dropped from nine weeks to
      four days, and the team stopped dreading release week because there is no release
      week any more. Small batches are easier to review, easier to test and easier to roll
      back.</p>
    </article>
    <section id="comments" class="comments">
      <h2>3 Comments</h2>
      <div class="comment"><p>COMMENT-SPAM-TEXT: great post, visit my casino site!</p></div>
      <div class="comment"><p>COMMENT-SECOND: we tried this and it failed for us.</p></div>
    </section>
  </main>
  <footer class="site-footer">
    <p>FOOTER-COPYRIGHT-TEXT 2024 Example Inc. All rights reserved.</p>
    <a href="/privacy">Privacy policy</a>
  </footer>
</body>
</html>
"""


# --- find_urls ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("read https://example.com/a.", ["https://example.com/a"]),
        ("(see https://example.com/a), then", ["https://example.com/a"]),
        ("wow http://example.com/x?y=1&z=2!", ["http://example.com/x?y=1&z=2"]),
        ("is it https://example.com/q?", ["https://example.com/q"]),
        ("a; https://example.com/b; c", ["https://example.com/b"]),
        ('"https://example.com/quoted"', ["https://example.com/quoted"]),
        ("[docs](https://example.com/docs)", ["https://example.com/docs"]),
        (
            "https://en.wikipedia.org/wiki/Python_(programming_language).",
            ["https://en.wikipedia.org/wiki/Python_(programming_language)"],
        ),
        ("<https://example.com/angle>", ["https://example.com/angle"]),
        ("HTTPS://EXAMPLE.COM/Up", ["HTTPS://EXAMPLE.COM/Up"]),
        ("no links here, just example.com and ftp://files.example", []),
        ("https:// nothing", []),
        ("", []),
    ],
)
def test_find_urls_strips_trailing_punctuation(text: str, expected: list[str]) -> None:
    assert find_urls(text) == expected


def test_find_urls_deduplicates_keeps_order_and_limits() -> None:
    text = "https://b.example/1 https://a.example/2. again https://b.example/1, https://c.example/3"
    assert find_urls(text) == ["https://b.example/1", "https://a.example/2", "https://c.example/3"]
    assert find_urls(text, limit=2) == ["https://b.example/1", "https://a.example/2"]
    assert find_urls(text, limit=0) == []


# --- the guard, with a fake resolver ----------------------------------------------


def test_private_address_refused_with_clear_message(dns: dict[str, list[str]]) -> None:
    dns["example.internal"] = ["10.0.0.5"]
    with pytest.raises(UrlNotAllowed) as error:
        check_url("http://example.internal/page")
    assert error.value.message == (
        "URL not allowed: example.internal resolves to a private address (10.0.0.5)"
    )
    assert error.value.status_code == 400
    assert isinstance(error.value, BadRequest)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.1.2.3", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.1", "a private address"),
        ("192.168.1.10", "a private address"),
        ("169.254.10.20", "a link-local address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("169.254.170.2", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("100.64.0.1", "a shared (CGNAT) address"),
        ("0.0.0.0", "an unspecified address"),
        ("224.0.0.1", "a multicast address"),
        ("240.0.0.1", "a reserved address"),
        ("::1", "a loopback address"),
        ("::", "an unspecified address"),
        ("fe80::1", "a link-local address"),
        ("fc00::1", "a private address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("ff02::1", "a multicast address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("::ffff:10.0.0.1", "a private address"),
        ("::ffff:169.254.169.254", "a cloud metadata address"),
        ("2002:7f00:1::", "a loopback address"),  # 6to4 wrapping 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "a cloud metadata address"),  # NAT64 of 169.254.169.254
    ],
)
def test_non_public_addresses_refused(dns: dict[str, list[str]], address: str, kind: str) -> None:
    dns["host.test"] = [address]
    with pytest.raises(UrlNotAllowed, match=re.escape(f"host.test resolves to {kind} (")):
        check_url("https://host.test/")


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://127.0.0.1:8080/", "a loopback"),
        ("http://[::1]/", "a loopback"),
        ("http://[::ffff:127.0.0.1]/", "a loopback"),
        ("http://169.254.169.254/latest/meta-data/", "a cloud metadata"),
        ("http://[fd00:ec2::254]/", "a cloud metadata"),
        ("http://0.0.0.0/", "an unspecified"),
        ("http://10.0.0.5/", "a private"),
    ],
)
def test_ip_literals_refused_without_dns(url: str, kind: str) -> None:
    with pytest.raises(UrlNotAllowed, match=re.escape(f"is {kind} address")):
        check_url(url)


def test_every_resolved_address_must_be_public(dns: dict[str, list[str]]) -> None:
    dns["mixed.test"] = ["93.184.216.34", "10.0.0.7"]
    with pytest.raises(UrlNotAllowed, match=r"private address \(10\.0\.0\.7\)"):
        check_url("https://mixed.test/")


def test_public_address_passes(dns: dict[str, list[str]]) -> None:
    dns["example.com"] = ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]
    assert check_url("https://example.com/post?id=1") == "https://example.com/post?id=1"
    assert run(check_url_async("http://example.com/")) == "http://example.com/"
    assert check_url("http://93.184.216.34/") == "http://93.184.216.34/"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/file", "only http and https"),
        ("file:///etc/passwd", "only http and https"),
        ("javascript:alert(1)", "only http and https"),
        ("gopher://example.com:70/", "only http and https"),
        ("//example.com/no-scheme", "only http and https"),
        ("http://user:secret@example.com/", "user name or password"),
        ("https://token@example.com/", "user name or password"),
        ("http:///just-a-path", "has no host"),
        ("http://", "has no host"),
        ("", "the link is empty"),
        ("https://example.com/" + "a" * 3000, "longer than 2048 characters"),
    ],
)
def test_malformed_or_unsafe_urls_refused(url: str, message: str) -> None:
    with pytest.raises(UrlNotAllowed, match=message):
        check_url(url)


def test_unknown_host_is_a_clear_error() -> None:
    with pytest.raises(BadRequest, match=r"Could not resolve nowhere\.test"):
        check_url("https://nowhere.test/")


def test_the_environment_does_not_sway_the_guard(
    dns: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allowance is the caller's (its Runtime's allow_private_urls setting, handed
    in): the guard itself reads nothing, so the variable set now changes nothing."""
    monkeypatch.setenv(guard.ALLOW_PRIVATE_ENV, "1")
    dns["intranet.test"] = ["127.0.0.1"]
    with pytest.raises(UrlNotAllowed, match="loopback"):
        check_url("http://intranet.test/")
    with pytest.raises(UrlNotAllowed, match="loopback"):
        run(fetch("http://intranet.test/"))


def test_allowance_permits_private_but_never_metadata_or_link_local(
    dns: dict[str, list[str]],
) -> None:
    for address in ["127.0.0.1", "::1", "10.0.0.5", "192.168.0.2", "100.64.1.1", "fd12::1"]:
        dns["intranet.test"] = [address]
        assert (
            check_url("http://intranet.test/wiki", allow_private=True)
            == "http://intranet.test/wiki"
        )
    for address, kind in [
        ("169.254.169.254", "cloud metadata"),
        ("::ffff:169.254.169.254", "cloud metadata"),
        ("fd00:ec2::254", "cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
    ]:
        dns["intranet.test"] = [address]
        with pytest.raises(UrlNotAllowed, match=kind):
            check_url("http://intranet.test/", allow_private=True)


# --- fetch against a real local server ------------------------------------------------


def test_fetch_returns_page_and_names_socialgen(server: Server) -> None:
    server.routes["/article"] = lambda h: h.respond(ARTICLE_HTML.encode())
    page = run(fetch(server.url("/article"), allow_private=True))
    assert page.status == 200
    assert page.url == page.final_url == server.url("/article")
    assert page.media_type == "text/html"
    assert "Shipping weekly" in page.text
    headers = server.seen[0][1]
    assert headers["User-Agent"].startswith("socialgen/")
    assert "text/html" in headers["Accept"]


def test_fetch_connects_to_checked_address_with_original_host(
    server: Server, dns: dict[str, list[str]]
) -> None:
    port = server.base.rsplit(":", 1)[1]
    dns["blog.test"] = ["127.0.0.1"]
    server.routes["/post"] = lambda h: h.respond(b"<p>hi</p>")
    page = run(fetch(f"http://blog.test:{port}/post#section", allow_private=True))
    assert page.final_url == f"http://blog.test:{port}/post#section"
    assert server.seen[0] == ("/post", server.seen[0][1])
    assert server.seen[0][1]["Host"] == f"blog.test:{port}"


def test_fetch_without_allowance_refuses_local_server(server: Server) -> None:
    server.routes["/article"] = lambda h: h.respond(b"<p>secret</p>")
    with pytest.raises(UrlNotAllowed, match=r"127\.0\.0\.1 is a loopback address"):
        run(fetch(server.url("/article")))
    assert server.seen == []


def test_redirects_are_followed(server: Server) -> None:
    server.routes["/old"] = lambda h: h.redirect("/middle", 301)
    server.routes["/middle"] = lambda h: h.redirect(server.url("/article"), 307)
    server.routes["/article"] = lambda h: h.respond(b"<p>moved here</p>")
    page = run(fetch(server.url("/old"), allow_private=True))
    assert page.url == server.url("/old")
    assert page.final_url == server.url("/article")
    assert page.text == "<p>moved here</p>"
    assert server.paths() == ["/old", "/middle", "/article"]


def test_too_many_redirects(server: Server) -> None:
    def redirect_to(location: str) -> Route:
        return lambda handler: handler.redirect(location)

    for hop in range(7):
        server.routes[f"/hop{hop}"] = redirect_to(f"/hop{hop + 1}")
    server.routes["/hop7"] = lambda h: h.respond(b"<p>end</p>")
    with pytest.raises(SourceError, match="more than 5 redirects"):
        run(fetch(server.url("/hop0"), allow_private=True))
    assert len(server.seen) == 6  # the first request and five followed redirects
    assert run(fetch(server.url("/hop2"), allow_private=True)).final_url == server.url(
        "/hop7"
    )  # exactly 5


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
        ("http://[::ffff:169.254.169.254]/", "is a cloud metadata address"),
        ("http://metadata.test/computeMetadata/v1/", "metadata.test resolves to a cloud metadata"),
        ("http://0.0.0.0/", "is an unspecified address"),
        ("file:///etc/passwd", "only http and https"),
        ("http://admin:pw@127.0.0.1/", "user name or password"),
    ],
)
def test_redirect_hop_is_checked(
    server: Server, dns: dict[str, list[str]], location: str, message: str
) -> None:
    dns["metadata.test"] = ["169.254.169.254"]
    server.routes["/go"] = lambda h: h.redirect(location)
    with pytest.raises(UrlNotAllowed, match=message) as error:
        run(fetch(server.url("/go"), allow_private=True))
    assert error.value.message.endswith(f"(redirected from {server.url('/go')})")
    assert server.paths() == ["/go"]


def test_redirect_to_private_address_refused_when_only_first_hop_allowed(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The local server has to be reachable for the first request; from then on the
    # allowance is off, as it is in production, and the redirect must be refused.
    answers = iter([True])
    checked = guard.destination

    def first_hop_allowed(url: str, *, allow_private: bool = False) -> guard.Destination:
        return checked(url, allow_private=next(answers, False))

    monkeypatch.setattr(fetch_module, "destination", first_hop_allowed)
    server.routes["/start"] = lambda h: h.redirect(server.url("/internal-admin"))
    server.routes["/internal-admin"] = lambda h: h.respond(b"<p>secret</p>")
    with pytest.raises(UrlNotAllowed, match=r"127\.0\.0\.1 is a loopback address"):
        run(fetch(server.url("/start")))
    assert server.paths() == ["/start"]


def test_404_is_a_clear_error(server: Server) -> None:
    with pytest.raises(SourceError, match="the server answered 404 Not Found") as error:
        run(fetch(server.url("/missing"), allow_private=True))
    assert error.value.status_code == 400
    assert server.url("/missing") in error.value.message


def test_server_error_is_a_clear_error(server: Server) -> None:
    server.routes["/boom"] = lambda h: h.send_error(503, "Service Unavailable")
    with pytest.raises(SourceError, match="answered 503 Service Unavailable"):
        run(fetch(server.url("/boom"), allow_private=True))


def test_connection_refused_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SourceError, match=r"could not connect to 127\.0\.0\.1"):
        run(fetch(f"http://127.0.0.1:{port}/", allow_private=True))


def _endless(handler: Handler) -> None:
    state = handler.server_state
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.end_headers()  # no length: the body runs until the connection closes
    chunk = b"<p>" + b"x" * 65_536 + b"</p>\n"
    while not state.stop.is_set():
        handler.wfile.write(chunk)
        state.sent["/endless"] = state.sent.get("/endless", 0) + len(chunk)


def test_too_large_body_refused_while_streaming(server: Server) -> None:
    server.routes["/endless"] = _endless
    with pytest.raises(SourceError, match="the page is larger than 200 kB"):
        run(fetch(server.url("/endless"), max_bytes=200_000, allow_private=True))
    # The client hung up: the server's endless write loop fails soon after.
    assert server.finished.setdefault("/endless", threading.Event()).wait(5)
    assert server.sent["/endless"] < 50_000_000  # kernel buffers, not the whole stream


def test_declared_too_large_body_refused_before_reading(server: Server) -> None:
    def huge(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(10**12))
        handler.end_headers()
        handler.server_state.stop.wait(10)  # never sends the body

    server.routes["/huge"] = huge
    # No clock: the body never comes, so a client that waited for it would end on the
    # 5 s timeout's message, not this one.
    with pytest.raises(SourceError, match="larger than 5 MB"):
        run(fetch(server.url("/huge"), timeout=5, allow_private=True))


def test_compressed_body_is_capped_after_decoding(server: Server) -> None:
    bomb = gzip.compress(b"<p>" + b"0" * 2_000_000 + b"</p>")  # about 2 kB on the wire

    def gzipped(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(bomb)))
        handler.end_headers()
        handler.wfile.write(bomb)

    server.routes["/bomb"] = gzipped
    with pytest.raises(SourceError, match="larger than 100 kB"):
        run(fetch(server.url("/bomb"), max_bytes=100_000, allow_private=True))


def test_server_hanging_up_is_a_clear_error(server: Server) -> None:
    server.routes["/hangup"] = lambda h: None  # no status line, connection closed
    with pytest.raises(SourceError, match=r"no valid answer from 127\.0\.0\.1"):
        run(fetch(server.url("/hangup"), allow_private=True))


def test_slow_server_hits_the_timeout(server: Server) -> None:
    def slow(handler: Handler) -> None:
        handler.server_state.stop.wait(5)
        handler.respond(b"<p>too late</p>")

    server.routes["/slow"] = slow
    # No clock: without the timeout the answer comes at 5 s and nothing raises.
    with pytest.raises(SourceError, match=r"no complete answer within 0\.3 s"):
        run(fetch(server.url("/slow"), timeout=0.3, allow_private=True))


def test_trickling_body_hits_the_total_time_cap(server: Server) -> None:
    # Each byte arrives well within a per-read timeout; only a total cap stops this.
    def trickle(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        while not handler.server_state.stop.wait(0.05):
            handler.wfile.write(b"x")
            handler.wfile.flush()

    server.routes["/trickle"] = trickle
    # No clock: the trickle never ends, so only the total cap's own error ends the fetch.
    with pytest.raises(SourceError, match=r"no complete answer within 0\.5 s"):
        run(fetch(server.url("/trickle"), timeout=0.5, allow_private=True))


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("text/html; charset=windows-1252", "café “quoted”".encode("cp1252"), "café “quoted”"),
        ("text/html; charset=ISO-8859-1", "naïve \u2013 “x”".encode("cp1252"), "naïve \u2013 “x”"),
        (
            "text/html",
            '<meta charset="shift_jis">日本'.encode("shift_jis"),
            '<meta charset="shift_jis">日本',
        ),
        ("text/html", "\ufeffzoë".encode("utf-8"), "zoë"),
        ("text/html", "zoë".encode(), "zoë"),
        ("text/html", "zoë".encode("cp1252"), "zoë"),
        ("text/html; charset=no-such-codec", b"plain", "plain"),
    ],
)
def test_page_text_uses_declared_or_detected_charset(
    content_type: str, body: bytes, expected: str
) -> None:
    page = FetchedPage(url="u", final_url="u", status=200, content_type=content_type, body=body)
    assert page.text == expected


# --- articles ---------------------------------------------------------------------------


def test_article_main_text_without_nav_comments_or_footer(server: Server) -> None:
    server.routes["/blog/shipping"] = lambda h: h.respond(ARTICLE_HTML.encode())
    server.routes["/s"] = lambda h: h.redirect("/blog/shipping")
    article = run(extract_article(server.url("/s"), allow_private=True))
    assert article.url == server.url("/s")
    assert article.final_url == server.url("/blog/shipping")
    assert article.title.startswith("Shipping weekly beats shipping perfect")
    assert article.author == "Dana Whitfield"
    assert article.date == "2024-03-18"
    assert "weekly release train" in article.text
    assert "two thirds" in article.text
    assert "feature flags" in article.text  # NFKC turned the "ﬂ" ligature into "fl"
    for noise in ("NAVIGATION-PRICING-LINK", "COMMENT-SPAM-TEXT", "COMMENT-SECOND", "FOOTER"):
        assert noise not in article.text
    assert "\n\n\n" not in article.text


def test_article_not_html_is_refused(server: Server) -> None:
    server.routes["/data.json"] = lambda h: h.respond(b'{"a": 1}', "application/json")
    with pytest.raises(SourceError, match=r"not a web page \(application/json\)"):
        run(extract_article(server.url("/data.json"), allow_private=True))


def test_article_without_main_text_is_refused(server: Server) -> None:
    empty = b"""<html><head><title>Sign in</title></head><body>
    <nav><a href="/">Home</a> <a href="/help">Help</a></nav>
    <form><input name="user"><input name="password" type="password"><button>Sign in</button></form>
    </body></html>"""
    server.routes["/login"] = lambda h: h.respond(empty)
    with pytest.raises(SourceError, match="no article text found"):
        run(extract_article(server.url("/login"), allow_private=True))


def test_article_fetch_errors_pass_through(server: Server) -> None:
    with pytest.raises(SourceError, match="404"):
        run(extract_article(server.url("/gone"), allow_private=True))


def test_clean_text_normalises_and_collapses_blank_lines() -> None:
    raw = (
        "\uff26\uff55\uff4c\uff4c width and ﬁne\u00a0print  \r\n\r\n\r\n\n\nNext   \n\n\n\nLast\n\n"
    )
    assert clean_text(raw) == "Full width and fine print\n\nNext\n\nLast"
