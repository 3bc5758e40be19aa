"""Alembic environment: runs on the connection socialgen hands it."""

from alembic import context
from sqlmodel import SQLModel

import socialgen.store.tables  # noqa: F401  (registers the tables)

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("socialgen runs migrations itself: use socialgen.store.migrate.upgrade()")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
