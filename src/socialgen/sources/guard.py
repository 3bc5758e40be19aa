"""The one SSRF guard: which URLs socialgen may fetch.

Every outbound request (and every redirect hop) passes `destination()`: http(s)
only, a host, no credentials, a bounded length, and every address the host
resolves to must be public. The caller then connects to one of those checked
addresses (see `fetch.py`), so a DNS answer that changes between the check and
the connection (DNS rebinding) cannot smuggle a private address in.

`allow_private=True` lets loopback and private addresses through. It comes from the
`allow_private_urls` setting (SOCIALGEN_ALLOW_PRIVATE_URLS=1), which the caller's
Runtime reads and hands down (plans, services, `NetworkSettings`); the guard reads
nothing itself, and a caller that says nothing gets the safe answer (refused). It is
meant for tests and trusted intranets only; link-local, multicast, reserved,
unspecified and cloud metadata addresses stay refused even then.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass

import httpx

from socialgen.kit.errors import BadRequest

# The setting's variable, named for tests: config/ reads it, never this module.
ALLOW_PRIVATE_ENV = "SOCIALGEN_ALLOW_PRIVATE_URLS"
MAX_URL_LENGTH = 2048
ALLOWED_SCHEMES = frozenset({"http", "https"})

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance metadata services hand out cloud credentials: never reachable, not even
# with the allowance. Most live in link-local space (refused anyway) but these are
# named so the message says what they are, and some are not link-local at all.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6 (inside the private fc00::/7)
        "100.100.100.200",  # Alibaba Cloud (inside CGNAT space)
        "168.63.129.16",  # Azure WireServer (a public-looking address)
    )
)
CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")

# Kinds of address the test/intranet allowance lets through; everything else
# non-public stays refused.
PRIVATE_KINDS = frozenset({"loopback", "private", "shared (CGNAT)"})


class UrlNotAllowed(BadRequest):
    """The URL is refused by policy (scheme, credentials, non-public address)."""


@dataclass(frozen=True)
class Destination:
    """A URL that passed the guard and the addresses it may be fetched from."""

    url: str
    host: str  # ASCII (IDNA) host name or IP literal, as the URL names it
    addresses: tuple[str, ...]  # every resolved address; all of them passed

    @property
    def is_ip_literal(self) -> bool:
        return _parse_ip(self.host) is not None


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to. Tests replace this to avoid real DNS."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_url(url: str, *, allow_private: bool = False) -> str:
    """Validate `url` for fetching and return it; raises `UrlNotAllowed` otherwise.

    Blocking (it resolves the host): use `check_url_async` on the event loop.
    """
    return destination(url, allow_private=allow_private).url


async def check_url_async(url: str, *, allow_private: bool = False) -> str:
    """`check_url` with the DNS lookup run in a thread, off the event loop."""
    return await asyncio.to_thread(check_url, url, allow_private=allow_private)


def destination(url: str, *, allow_private: bool = False) -> Destination:
    """Validate `url`, resolve its host and refuse any non-public address
    (loopback and private ones pass with `allow_private`: the allow_private_urls
    setting, handed in by the caller)."""
    url = url.strip()
    if not url:
        raise UrlNotAllowed("URL not allowed: the link is empty")
    if len(url) > MAX_URL_LENGTH:
        raise UrlNotAllowed(f"URL not allowed: the link is longer than {MAX_URL_LENGTH} characters")
    # httpx's own parser, so the guard reads the URL exactly as the client will.
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise UrlNotAllowed(f"URL not allowed: {url!r} is not a valid link ({exc})") from exc
    if parsed.scheme not in ALLOWED_SCHEMES:
        shown = parsed.scheme or "none"
        raise UrlNotAllowed(
            f"URL not allowed: only http and https links can be fetched (scheme: {shown})"
        )
    host = parsed.raw_host.decode("ascii")
    if not host:
        raise UrlNotAllowed(f"URL not allowed: {url!r} has no host")
    if parsed.userinfo:
        raise UrlNotAllowed("URL not allowed: links with a user name or password are refused")

    literal = _parse_ip(host)
    if literal is not None:
        _refuse_non_public(host, literal, literal=True, allow_private=allow_private)
        return Destination(url=url, host=host, addresses=(str(literal),))

    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = resolve(host.rstrip("."), port)
    except (OSError, UnicodeError) as exc:
        raise BadRequest(f"Could not resolve {host}: no such host or DNS failure") from exc
    if not addresses:
        raise BadRequest(f"Could not resolve {host}: no addresses")
    # Every answer must pass, not just the first: the client may pick any of them.
    for address in addresses:
        ip = _parse_ip(address)
        if ip is None:
            raise UrlNotAllowed(f"URL not allowed: {host} resolves to {address!r}")
        _refuse_non_public(host, ip, literal=False, allow_private=allow_private)
    return Destination(url=url, host=host, addresses=tuple(dict.fromkeys(addresses)))


def address_kind(ip: IPAddress) -> str | None:
    """Why `ip` is not public (e.g. "loopback"), or None for a public address."""
    # IPv6 forms that embed an IPv4 address reach that IPv4 host: judge the IPv4 one.
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        return address_kind(embedded)
    if ip in METADATA_ADDRESSES:
        return "cloud metadata"
    checks: tuple[tuple[bool, str], ...] = (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_multicast, "multicast"),
        (ip.version == 4 and ip in CGNAT, "shared (CGNAT)"),
        (ip.is_reserved, "reserved"),
        (ip.is_private, "private"),
        (not ip.is_global, "non-public"),
    )
    for matches, kind in checks:
        if matches:
            return kind
    return None


def _refuse_non_public(host: str, ip: IPAddress, *, literal: bool, allow_private: bool) -> None:
    kind = address_kind(ip)
    if kind is None or (kind in PRIVATE_KINDS and allow_private):
        return
    article = "an" if kind[0] in "aeiou" else "a"
    if literal:
        raise UrlNotAllowed(f"URL not allowed: {host} is {article} {kind} address")
    raise UrlNotAllowed(f"URL not allowed: {host} resolves to {article} {kind} address ({ip})")


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d
        return ip.ipv4_mapped
    if ip.sixtofour is not None:  # 2002:AABB:CCDD::/48
        return ip.sixtofour
    if ip in NAT64:  # 64:ff9b::a.b.c.d, translated by a NAT64 gateway
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _parse_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
