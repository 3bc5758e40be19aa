"""Fetch one web page, safely: the guard on every hop, size and time caps.

Redirects are followed here, not by httpx, so each hop is checked by the guard
before anything is sent to it. Each request connects to an address the guard
already checked (the Host header and TLS name stay the original host's), so DNS
cannot answer differently between the check and the connection. Environment
proxies are ignored for the same reason: a proxy would resolve the host itself.
"""

from __future__ import annotations

import asyncio
import codecs
import re
from dataclasses import dataclass
from functools import cached_property

import httpx

from socialgen import __version__
from socialgen.kit.errors import BadRequest
from socialgen.sources.guard import Destination, UrlNotAllowed, destination

MAX_REDIRECTS = 5
DEFAULT_MAX_BYTES = 5_000_000
DEFAULT_TIMEOUT = 15.0
DEFAULT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
USER_AGENT = f"socialgen/{__version__} (content fetcher; python-httpx)"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

# Labels browsers treat as windows-1252 (WHATWG Encoding): pages declaring them
# routinely contain cp1252 quotes and dashes that latin-1 would turn into controls.
_CP1252_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin-1", "latin1", "ascii", "us-ascii"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class SourceError(BadRequest):
    """An outside source could not be fetched or read."""


@dataclass(frozen=True)
class FetchedPage:
    url: str  # as asked for
    final_url: str  # after redirects
    status: int
    content_type: str  # the header as sent, "" when absent
    body: bytes

    @property
    def media_type(self) -> str:
        """`text/html` from `text/html; charset=utf-8`, lower case."""
        return self.content_type.split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The charset the Content-Type header declares, if any."""
        match = re.search(r"""charset\s*=\s*["']?([^"';\s]+)""", self.content_type, re.I)
        return match.group(1) if match else None

    @cached_property
    def text(self) -> str:
        """The body decoded: BOM, then declared charset, then <meta>, then UTF-8/cp1252."""
        return self.body.decode(_pick_encoding(self.body, self.charset), errors="replace")


async def fetch(
    url: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float = DEFAULT_TIMEOUT,
    accept: str = DEFAULT_ACCEPT,
    allow_private: bool = False,
) -> FetchedPage:
    """GET `url` through the guard. Every failure is a `BadRequest` with a clear message.

    `timeout` caps the whole fetch (all hops, the whole body), not just each read.
    `allow_private`: the caller's allow_private_urls setting (guard.destination).
    """
    try:
        async with asyncio.timeout(timeout):
            return await _fetch(
                url,
                max_bytes=max_bytes,
                timeout=timeout,
                accept=accept,
                allow_private=allow_private,
            )
    # The total cap (asyncio) or httpx's per-read backstop: the same story for the user.
    except (TimeoutError, httpx.TimeoutException):
        raise SourceError(
            f"Could not fetch {url}: no complete answer within {timeout:g} s"
        ) from None


async def _fetch(
    url: str, *, max_bytes: int, timeout: float, accept: str, allow_private: bool
) -> FetchedPage:
    headers = {"User-Agent": USER_AGENT, "Accept": accept}
    async with httpx.AsyncClient(
        follow_redirects=False, trust_env=False, timeout=timeout, headers=headers
    ) as client:
        current = url
        for hop in range(MAX_REDIRECTS + 1):
            target = await _checked(
                current, first=url if hop else None, allow_private=allow_private
            )
            response = await _send(client, url, target)
            try:
                if response.status_code in REDIRECT_STATUSES:
                    current = _redirect_target(url, target.url, response)
                    continue
                if not response.is_success:
                    phrase = f" {response.reason_phrase}" if response.reason_phrase else ""
                    raise SourceError(
                        f"Could not fetch {url}: the server answered {response.status_code}{phrase}"
                    )
                body = await _read_capped(url, response, max_bytes)
            finally:
                await response.aclose()
            return FetchedPage(
                url=url,
                final_url=target.url,
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                body=body,
            )
    raise SourceError(f"Could not fetch {url}: more than {MAX_REDIRECTS} redirects")


async def _checked(current: str, *, first: str | None, allow_private: bool) -> Destination:
    """The guard, off the event loop; a refused redirect hop says where it came from."""
    try:
        return await asyncio.to_thread(destination, current, allow_private=allow_private)
    except UrlNotAllowed as exc:
        if first is None:
            raise
        raise UrlNotAllowed(f"{exc.message} (redirected from {first})") from None


async def _send(client: httpx.AsyncClient, url: str, target: Destination) -> httpx.Response:
    """Send the GET to the first checked address that accepts a connection."""
    refused: httpx.ConnectError | None = None
    for address in target.addresses:
        try:
            return await client.send(_pinned_request(client, target, address), stream=True)
        except httpx.ConnectError as exc:  # try the host's next address, as browsers do
            refused = exc
        except httpx.TimeoutException:
            raise  # reported by fetch() with the time limit
        except httpx.HTTPError as exc:
            raise SourceError(
                f"Could not fetch {url}: no valid answer from {target.host} ({_reason(exc)})"
            ) from None
    reason = _reason(refused) if refused else "no address"
    raise SourceError(f"Could not fetch {url}: could not connect to {target.host} ({reason})")


def _pinned_request(client: httpx.AsyncClient, target: Destination, address: str) -> httpx.Request:
    """A request that connects to the checked `address` but names the original host."""
    url = httpx.URL(target.url).copy_with(fragment=None)
    if target.is_ip_literal:
        return client.build_request("GET", url)
    return client.build_request(
        "GET",
        url.copy_with(host=address.split("%", 1)[0]),
        headers={"Host": url.netloc.decode("ascii")},
        # TLS: SNI and the certificate check use the real host name, not the IP.
        extensions={"sni_hostname": target.host},
    )


def _redirect_target(url: str, current: str, response: httpx.Response) -> str:
    location = response.headers.get("location", "").strip()
    if not location:
        raise SourceError(
            f"Could not fetch {url}: the server answered {response.status_code} without a Location"
        )
    try:
        return str(httpx.URL(current).join(location).copy_with(fragment=None))
    except httpx.InvalidURL as exc:
        raise SourceError(
            f"Could not fetch {url}: the redirect target is not a valid link"
        ) from exc


async def _read_capped(url: str, response: httpx.Response, max_bytes: int) -> bytes:
    """Read the body, stopping as soon as it passes `max_bytes` (decoded, so gzip
    bombs are caught too)."""
    too_large = SourceError(f"Could not fetch {url}: the page is larger than {_size(max_bytes)}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large
    body = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise too_large
    except httpx.TimeoutException:
        raise  # reported by fetch() with the time limit
    except httpx.HTTPError as exc:
        raise SourceError(
            f"Could not fetch {url}: the download broke off ({_reason(exc)})"
        ) from None
    return bytes(body)


def _pick_encoding(body: bytes, declared: str | None) -> str:
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return encoding
    meta = _META_CHARSET.search(body[:4096])
    for label in (declared, meta.group(1).decode("ascii") if meta else None):
        if label and (known := _known_encoding(label)):
            return known
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def _known_encoding(label: str) -> str | None:
    label = label.strip().lower()
    if label in _CP1252_LABELS:
        return "cp1252"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _size(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:g} MB"
    if count >= 1_000:
        return f"{count / 1_000:g} kB"
    return f"{count} bytes"
