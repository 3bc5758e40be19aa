"""metric snapshots of a post without a publication (imported history), impressions;
publications found by (account, remote id)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metric_snapshot") as batch:
        batch.add_column(sa.Column("post_id", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("impressions", sa.Integer(), nullable=True))
        batch.alter_column("publication_id", existing_type=sa.String(length=64), nullable=True)
        batch.create_foreign_key(
            "fk_metric_snapshot_post_id", "post", ["post_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_index("ix_metric_snapshot_post_taken", ["post_id", "taken_at"])
    op.create_index("ix_publication_account_remote", "publication", ["account_id", "remote_id"])
    # Every existing snapshot belongs to a publication: give it that publication's post.
    op.execute(
        "UPDATE metric_snapshot SET post_id = "
        "(SELECT publication.post_id FROM publication "
        "WHERE publication.id = metric_snapshot.publication_id)"
    )


def downgrade() -> None:
    op.drop_index("ix_publication_account_remote", table_name="publication")
    op.execute("DELETE FROM metric_snapshot WHERE publication_id IS NULL")
    with op.batch_alter_table("metric_snapshot") as batch:
        batch.drop_index("ix_metric_snapshot_post_taken")
        batch.drop_constraint("fk_metric_snapshot_post_id", type_="foreignkey")
        batch.alter_column("publication_id", existing_type=sa.String(length=64), nullable=False)
        batch.drop_column("impressions")
        batch.drop_column("post_id")
