"""carousel slides say where their text came from (model or template)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("carousel_slide") as batch:
        batch.add_column(
            sa.Column("source", sa.String(length=16), nullable=False, server_default="model")
        )


def downgrade() -> None:
    with op.batch_alter_table("carousel_slide") as batch:
        batch.drop_column("source")
