"""Which module speaks for a network: `networks/<name>/adapter.py`, imported on first use.

Imported lazily because each network module pulls in its client (atproto,
Mastodon.py, httpx) and a command about one network should not pay for the others.
A `Networks` is the built-in table plus the modules a Runtime was handed
(`Runtime(networks={"bluesky": scripted})`: a test's network, under any name, a
built-in one shadowed); each Runtime has its own (`Runtime.networks`), and faces hand
it to the publishing functions. Nothing is registered in the module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol, cast

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    Connected,
    NetworkAdapter,
    NetworkSettings,
    SecretSaver,
)
from socialgen.publishing.secrets import SecretKeys

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime

BUILT_IN = (
    "bluesky",
    "mastodon",
    "linkedin",
    "x",
    "threads",
    "telegram",
    "discord",
    "nostr",
    "pixelfed",
)


class NetworkModule(Protocol):
    """What each networks/<name>/adapter.py exposes at module level (see networks/base.py).
    Bluesky has no `authorize` (an app password is its only way in)."""

    DEFAULT_SERVICE_URL: str

    def build(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        settings: NetworkSettings = ...,
    ) -> NetworkAdapter: ...

    def connect(
        self, service_url: str, handle: str, secret: str, *, settings: NetworkSettings = ...
    ) -> Connected: ...

    def authorize(
        self,
        service_url: str,
        options: dict[str, str],
        *,
        open_browser: bool,
        announce: Callable[[str], None],
        settings: NetworkSettings = ...,
    ) -> Connected: ...


class Networks:
    """The built-in networks and the modules handed in, by lower-case name (they win
    over a built-in name). A read-only view of the mapping handed in: its owner (a
    test's fixture) may fill it after the app is built; nothing here changes it.
    `settings`: what the Runtime's settings say for the networks, handed to each
    module's build/connect/authorize. `keys`: where the accounts' secrets are
    encrypted with (the Runtime's secret_key setting or key file), for the functions
    that store or read an account's secret; never handed to a module."""

    def __init__(
        self,
        extra: Mapping[str, object] | None = None,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
        *,
        keys: SecretKeys,
    ) -> None:
        self._extra = MappingProxyType(extra if extra is not None else {})
        self.settings = settings
        self.keys = keys

    def known(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*BUILT_IN, *self._extra)))

    def module(self, name: str) -> NetworkModule:
        """The module for `name`; a BadRequest naming the networks there are otherwise."""
        key = name.strip().lower()
        if key in self._extra:
            return _network_module(key, self._extra[key])
        if key not in BUILT_IN:
            raise BadRequest(f"Unknown network {name!r}: use one of {', '.join(BUILT_IN)}")
        return cast(
            NetworkModule, importlib.import_module(f"socialgen.publishing.networks.{key}.adapter")
        )

    @classmethod
    def of(cls, runtime: Runtime) -> Networks:
        """A Runtime's networks: the built-in ones and those it was handed, with what
        its settings say for them and its secret keys."""
        return cls(
            runtime.given_networks,
            NetworkSettings.of(runtime.settings),
            keys=SecretKeys.of(runtime),
        )


def _network_module(name: str, module: object) -> NetworkModule:
    """`module` as a network module, once it can build an adapter (a Runtime carries the
    modules handed in without knowing their type; a test's network may offer no way to
    connect, only to publish)."""
    if not callable(getattr(module, "build", None)):
        raise TypeError(f"the network module handed in as {name!r} has no build()")
    return cast(NetworkModule, module)
