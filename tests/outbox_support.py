"""Shared by the outbox tests: accounts on a scripted network, due publications."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of
from socialgen.kit.clock import utcnow
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import KEY_ENV, SecretKeys, encrypt_secret
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import PostStatus, Publication, SocialAccount
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now


@pytest.fixture
def network(
    store: Store, networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> ScriptedNetwork:
    """A scripted Bluesky (idempotent, like the real one), in the test's Runtimes."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    net = networks["bluesky"] = ScriptedNetwork("bluesky")
    return net


@pytest.fixture
def linkedin(store: Store, networks: dict[str, Any]) -> ScriptedNetwork:
    """A scripted LinkedIn: no idempotency, a retry posts again."""
    net = networks["linkedin"] = ScriptedNetwork("linkedin", idempotent=False)
    return net


@pytest.fixture
def in_runtime(networks: dict[str, Any]) -> Runtime:
    """A Runtime with the test's networks, for a CLI invocation (`obj=`)."""
    return Runtime(networks=networks)


def terms_of(networks: dict[str, Any]) -> PublishTerms:
    """The settings' publishing terms, with the test's networks and the file store a
    Runtime made now uses."""
    runtime = Runtime()
    return PublishTerms.of(
        runtime.settings, Networks(networks, keys=SecretKeys.of(runtime)), files_of(runtime)
    )


def add_account(
    store: Store,
    handle: str,
    network: str = "bluesky",
    *,
    service_url: str = "http://127.0.0.1:9",
    email: str = "",
) -> str:
    with transaction(store.engine) as session:
        account = SocialAccount(
            workspace_id=store.workspace_id,
            network=network,
            handle=handle,
            display_name=f"Name of {handle}",
            email=email,
            service_url=service_url,
            secret_ciphertext=encrypt_secret({"password": "pw-secret-1234"}, session, keys_now()),
        )
        session.add(account)
        session.flush()
        return account.id


def due_publication(
    store: Store,
    account_id: str,
    *,
    due: datetime | None = None,
    content: str = "A post going out",
) -> tuple[str, str]:
    """A scheduled post with one queued publication; returns (post id, publication id)."""
    moment = due or utcnow() - timedelta(seconds=1)
    post = store.post(content, status=PostStatus.SCHEDULED, when=moment)
    with transaction(store.engine) as session:
        publication = Publication(
            workspace_id=store.workspace_id, post_id=post.id, account_id=account_id, due_at=moment
        )
        session.add(publication)
        session.flush()
        return post.id, publication.id


def publication(store: Store, publication_id: str) -> Publication:
    with transaction(store.engine) as session:
        row = session.get(Publication, publication_id)
        assert row is not None
        session.expunge(row)
        return row
