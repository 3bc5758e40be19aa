"""drop ix_post_version_post_id: uq_post_version_number (post_id, version) serves
every lookup by post_id, and a second index on the same column cost a fifth of the
server's work writing the versions of a 100,000-row `posts import`

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_post_version_post_id", table_name="post_version")


def downgrade() -> None:
    op.create_index("ix_post_version_post_id", "post_version", ["post_id"], unique=False)
