"""An adapter for a stored account, built by the module its network has in `networks`
(the Runtime's: the built-in ones, or a test's)."""

from __future__ import annotations

from sqlalchemy import Engine

from socialgen.publishing.accounts.service import credentials_for, secret_saver
from socialgen.publishing.networks.base import NetworkAdapter
from socialgen.publishing.registry import Networks
from socialgen.store.tables import SocialAccount


def build_adapter(networks: Networks, engine: Engine, account: SocialAccount) -> NetworkAdapter:
    """The account's adapter (no network call while building); a refreshed session
    or token is saved on the account at once."""
    return networks.module(account.network).build(
        credentials_for(account, networks.keys),
        secret_saver(engine, account.id, networks.keys),
        settings=networks.settings,
    )
