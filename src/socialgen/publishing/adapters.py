"""An adapter for a stored account, and network modules named in the environment.

SOCIALGEN_TEST_NETWORKS="name=package.module,..." registers extra network modules
in every process that publishes (each `serve` worker, `publish-due`, the CLI): the
race tests point several processes at one recording network this way. Test code
stays under tests/; this only imports the module named.
"""

from __future__ import annotations

import importlib
import logging
import threading

from sqlalchemy import Engine

from socialgen.config import environment
from socialgen.errors import BadRequest
from socialgen.publishing.accounts.service import credentials_for, secret_saver
from socialgen.publishing.networks.base import NetworkAdapter
from socialgen.publishing.registry import NetworkModule, network_module, register_network
from socialgen.store.tables import SocialAccount

logger = logging.getLogger("socialgen.publishing")

EXTRA_NETWORKS_ENV = "SOCIALGEN_TEST_NETWORKS"

_lock = threading.Lock()
_loaded: str | None = None


def load_extra_networks() -> None:
    """Register the modules SOCIALGEN_TEST_NETWORKS names (once per value)."""
    global _loaded
    raw = environment(EXTRA_NETWORKS_ENV)
    if not raw or raw == _loaded:
        return
    with _lock:
        for entry in filter(None, (part.strip() for part in raw.split(","))):
            name, equals, module_name = entry.partition("=")
            if not equals or not name.strip() or not module_name.strip():
                raise BadRequest(f"{EXTRA_NETWORKS_ENV}: expected name=module, got {entry!r}")
            module = importlib.import_module(module_name.strip())
            register_network(name.strip(), _as_network_module(module))
            logger.info("network %s served by %s", name.strip(), module_name.strip())
        _loaded = raw


def module_for(network: str) -> NetworkModule:
    load_extra_networks()
    return network_module(network)


def build_adapter(engine: Engine, account: SocialAccount) -> NetworkAdapter:
    """The account's adapter (no network call while building); a refreshed session
    or token is saved on the account at once."""
    return module_for(account.network).build(
        credentials_for(account), secret_saver(engine, account.id)
    )


def _as_network_module(module: object) -> NetworkModule:
    if not callable(getattr(module, "build", None)):
        raise BadRequest(f"{EXTRA_NETWORKS_ENV}: {module!r} has no build(credentials, save)")
    return module  # type: ignore[return-value]
