"""Shared fixtures. The suite runs on SQLite; with SOCIALGEN_TEST_DATABASE_URL set
(e.g. postgresql://postgres@127.0.0.1:5432/test) it runs on PostgreSQL instead,
in a schema of its own that is dropped at the end."""

from __future__ import annotations

import gc
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlmodel import select

from socialgen.app.runtime import Runtime
from socialgen.auth.service import create_api_key, create_token
from socialgen.config import normalise_database_url
from socialgen.files.backends import files_of
from socialgen.files.store import FileStore
from socialgen.kit.clock import utcnow
from socialgen.posts.service import create_draft
from socialgen.store.engine import new_engine, transaction
from socialgen.store.migrate import upgrade
from socialgen.store.tables import Membership, Post, PostStatus, Role, User
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from socialgen.workspaces.service import (
    add_member,
    create_user,
    create_workspace,
    default_workspace,
)

PG_URL = os.environ.get("SOCIALGEN_TEST_DATABASE_URL")
BACKEND = "postgresql" if PG_URL else "sqlite"


def pytest_report_header() -> str:
    return f"socialgen store backend: {BACKEND}"


@pytest.fixture(autouse=True)
def _own_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test reads its own (absent) config file, never the user's own
    ~/.config/socialgen/config.toml; tests of the file set or clear SOCIALGEN_CONFIG."""
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(tmp_path / "config" / "config.toml"))


@pytest.fixture(scope="session")
def _pg_schema_url() -> Iterator[str | None]:
    if not PG_URL:
        yield None
        return
    base = normalise_database_url(PG_URL)
    schema = f"socialgen_test_{os.getpid()}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in base else "?"
    url = f"{base}{separator}options=-csearch_path%3D{schema}"
    engine = new_engine(url)
    upgrade(engine)
    engine.dispose()
    yield url
    # A Runtime a test dropped without closing it: its lease keeper (a daemon thread)
    # ends once it is collected, before it would refresh a lease in the schema dropped
    # below and warn after pytest's closing line, which must end CI's output.
    gc.collect()
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty SQLite file; each test starts from a copy (migrating is slower)."""
    path = tmp_path_factory.mktemp("template") / "socialgen.db"
    engine = create_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    return path


@dataclass
class Store:
    engine: Engine
    url: str
    home: Path
    workspace_id: str  # the default workspace
    owner_id: str  # the local owner, member of the default workspace
    runtime: Runtime  # the fixture's: it opened `engine` and closes it at the end

    def post(
        self,
        content: str = "A post about shipping weekly",
        *,
        workspace_id: str | None = None,
        status: str = PostStatus.DRAFT,
        when: datetime | None = None,
        **fields: Any,
    ) -> Post:
        """A post in any state; `when` is its created (draft), scheduled or published time."""
        with transaction(self.engine) as session:
            post = create_draft(session, workspace_id or self.workspace_id, content)
            moment = when or utcnow()
            post.status = status
            if status == PostStatus.DRAFT:
                post.created_at = post.updated_at = moment
            elif status == PostStatus.SCHEDULED:
                post.scheduled_at = moment
            else:
                post.scheduled_at = post.published_at = moment
            for name, value in fields.items():
                setattr(post, name, value)
            post.place_on_timeline()
            session.add(post)
        return post

    def workspace(self, name: str = "Other") -> str:
        with transaction(self.engine) as session:
            return create_workspace(session, name).id

    def user(self, email: str, *, workspace_id: str | None = None, role: str = "member") -> str:
        with transaction(self.engine) as session:
            user = create_user(session, email)
            if workspace_id is not None:
                add_member(session, workspace_id, email, role)
            return user.id

    def api_key(self, workspace_id: str | None = "default") -> str:
        bound = self.workspace_id if workspace_id == "default" else workspace_id
        with transaction(self.engine) as session:
            return create_api_key(session, name="test", workspace_id=bound)[1]

    def token(self, email: str = LOCAL_OWNER_EMAIL, days: int = 1) -> str:
        with transaction(self.engine) as session:
            return create_token(session, email, days=days)[1]

    def scalar(self, statement: Any) -> Any:
        with self.engine.connect() as connection:
            return connection.execute(statement).scalar()

    def files(self) -> FileStore:
        """The file store a Runtime made now uses (the test's home; the bucket a bucket
        test named in SOCIALGEN_FILES_URL): what the app and the CLI write to."""
        return files_of(Runtime())


@pytest.fixture
def store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    _pg_schema_url: str | None,
    _sqlite_template: Path,
) -> Iterator[Store]:
    home = tmp_path / "home"
    monkeypatch.setenv("SOCIALGEN_HOME", str(home))
    monkeypatch.delenv("SOCIALGEN_WORKSPACE", raising=False)
    if _pg_schema_url:
        url = _pg_schema_url
        _truncate_all(url)
        monkeypatch.setenv("SOCIALGEN_DATABASE_URL", url)
    else:
        home.mkdir()
        shutil.copy(_sqlite_template, home / "socialgen.db")
        url = f"sqlite:///{home / 'socialgen.db'}"
        monkeypatch.delenv("SOCIALGEN_DATABASE_URL", raising=False)
    runtime = Runtime()  # the test's own: its engine, its quota lease
    engine = runtime.open_store()
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        owner = session.exec(select(User).where(User.email == LOCAL_OWNER_EMAIL)).one()
        assert session.get(Membership, (workspace.id, owner.id)).role == Role.OWNER  # type: ignore[union-attr]
        ids = workspace.id, owner.id
    yield Store(
        engine=engine,
        url=url,
        home=home,
        workspace_id=ids[0],
        owner_id=ids[1],
        runtime=runtime,
    )
    runtime.close()


def _truncate_all(url: str) -> None:
    from sqlmodel import SQLModel

    import socialgen.store.tables  # noqa: F401

    names = ", ".join(f'"{table.name}"' for table in SQLModel.metadata.sorted_tables)
    engine = new_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {names} CASCADE"))
    engine.dispose()


def days_ago(days: float) -> datetime:
    return utcnow() - timedelta(days=days)


def days_ahead(days: float) -> datetime:
    return utcnow() + timedelta(days=days)


@pytest.fixture
def networks() -> dict[str, Any]:
    """The network modules this test hands to its Runtimes, by lower-case name (a
    scripted network as "bluesky"): the client's and the live server's read this
    mapping at each use, so a fixture may fill it after they are built; a CLI
    invocation takes `obj=Runtime(networks=networks)`."""
    return {}


@pytest.fixture
def allow_private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """SOCIALGEN_ALLOW_PRIVATE_URLS=1, for a test whose servers live on 127.0.0.1 (the
    SSRF guard lets them through). A Runtime reads its settings once: name this before
    `client`, `ai_client` or `live_server` (a test's fixtures are made in the order it
    names them), and build a CLI invocation's Runtime after it."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


@pytest.fixture
def client(store: Store, networks: dict[str, Any]) -> Iterator[Any]:
    """The app in-process (fastapi TestClient) on the test's store."""
    from fastapi.testclient import TestClient

    from socialgen.http.server import create_app

    with TestClient(create_app(Runtime(networks=networks))) as test_client:
        yield test_client


@dataclass
class LiveServer:
    base_url: str


@pytest.fixture
def live_server(store: Store, networks: dict[str, Any]) -> Iterator[LiveServer]:
    """The real app behind a real uvicorn socket on 127.0.0.1."""
    from socialgen.http.server import create_app

    with serving(create_app(Runtime(networks=networks))) as server:
        yield server


@contextmanager
def serving(app: Any) -> Iterator[LiveServer]:
    """`app` behind a real uvicorn socket on 127.0.0.1, in a thread."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield LiveServer(base_url=f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(timeout=10)


from tests.carousel_support import files_at  # noqa: E402,F401  (folder and bucket)
from tests.s3_support import bucket, faulty_bucket, s3_server  # noqa: E402,F401
from tests.scripted_support import (  # noqa: E402,F401  (shared fixtures)
    ai_client,
    ai_live_server,
    scripted_ai,
    scripted_client,
    scripted_images,
    scripted_model,
)
