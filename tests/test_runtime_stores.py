"""The Runtime owns the stores it opens (store/stores.py): one engine per database URL,
migrated once, and its quota lease with the keeper thread; `close()` disposes them.
The CLI closes its Runtime when the command ends, the app's lifespan when the server
stops. Nothing is kept per process: two Runtimes share nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.http.server import create_app
from socialgen.store.engine import new_engine, transaction
from socialgen.workspaces.usage import reserve_posts
from tests.conftest import Store

runner = CliRunner()


def test_one_engine_per_store_until_close_then_a_new_one(store: Store) -> None:
    runtime = Runtime()
    engine = runtime.open_store()
    assert runtime.open_store() is engine
    assert runtime.derived(port=9000).open_store() is engine  # shared with a derived one
    assert runtime.stores.opened() == [store.url]
    runtime.close()
    assert runtime.stores.opened() == []
    again = runtime.open_store()  # still usable: opened (and checked) again
    assert again is not engine
    with again.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar() == 1
    runtime.close()


def test_two_runtimes_share_no_engine_and_no_lease(store: Store) -> None:
    first, second = Runtime(), Runtime()
    assert first.open_store() is not second.open_store()
    assert first.stores.lease.owner != second.stores.lease.owner
    first.close()
    second.close()


def test_a_reservation_holds_the_lease_of_the_runtime_that_opened_the_store(
    store: Store,
) -> None:
    runtime = Runtime()
    with transaction(runtime.open_store()) as session:
        reserve_posts(session, store.workspace_id, 1)
    assert runtime.stores.lease.keeping
    assert not store.runtime.stores.lease.keeping  # the fixture's Runtime reserved nothing
    runtime.close()
    assert not runtime.stores.lease.keeping


def test_an_engine_no_runtime_opened_has_no_lease_to_hold(store: Store) -> None:
    engine = new_engine(store.url)
    try:
        with (
            pytest.raises(RuntimeError, match="open it through a Runtime"),
            transaction(engine) as session,
        ):
            reserve_posts(session, store.workspace_id, 1)
    finally:
        engine.dispose()


def test_the_cli_closes_its_runtime_when_the_command_ends(store: Store) -> None:
    runtime = Runtime()
    result = runner.invoke(app, ["posts", "timeline", "--json"], obj=runtime)
    assert result.exit_code == 0, result.output
    assert runtime.stores.opened() == []


def test_the_app_lifespan_closes_its_runtime(store: Store) -> None:
    runtime = Runtime()
    with TestClient(create_app(runtime)):  # the lifespan runs while this block does
        assert runtime.stores.opened() == [store.url]
    assert runtime.stores.opened() == []
