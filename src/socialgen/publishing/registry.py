"""Which module speaks for a network: `networks/<name>/adapter.py`, imported on first use.

Imported lazily because each network module pulls in its client (atproto,
Mastodon.py, httpx) and a command about one network should not pay for the others.
Tests plug a scripted network in under any name with `register_network`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol, cast

from socialgen.errors import BadRequest
from socialgen.publishing.networks.base import (
    AccountCredentials,
    Connected,
    NetworkAdapter,
    SecretSaver,
)

BUILT_IN = ("bluesky", "mastodon", "linkedin")


class NetworkModule(Protocol):
    """What each networks/<name>/adapter.py exposes at module level (see networks/base.py).
    Bluesky has no `authorize` (an app password is its only way in)."""

    DEFAULT_SERVICE_URL: str

    def build(
        self, credentials: AccountCredentials, save_secret: SecretSaver
    ) -> NetworkAdapter: ...

    def connect(self, service_url: str, handle: str, secret: str) -> Connected: ...

    def authorize(
        self,
        service_url: str,
        options: dict[str, str],
        *,
        open_browser: bool,
        announce: Callable[[str], None],
    ) -> Connected: ...


_registered: dict[str, NetworkModule] = {}


def known_networks() -> tuple[str, ...]:
    return tuple(dict.fromkeys((*BUILT_IN, *_registered)))


def network_module(name: str) -> NetworkModule:
    """The module for `name`; a BadRequest naming the networks there are otherwise."""
    key = name.strip().lower()
    if key in _registered:
        return _registered[key]
    if key not in BUILT_IN:
        raise BadRequest(f"Unknown network {name!r}: use one of {', '.join(BUILT_IN)}")
    return cast(
        NetworkModule, importlib.import_module(f"socialgen.publishing.networks.{key}.adapter")
    )


def register_network(name: str, module: NetworkModule) -> None:
    """Use `module` for `name` (a built-in name is shadowed) until unregistered."""
    _registered[name.strip().lower()] = module


def unregister_network(name: str) -> None:
    _registered.pop(name.strip().lower(), None)
