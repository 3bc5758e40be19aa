"""the posting queue: weekly slots per workspace (and account)

posting_queue: the workspace's queue (account_id null; one per workspace, by a partial
unique index) or an account's; queue_slot: its weekly wall times; queue_entry: the post
in a slot (one per slot moment and queue).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "posting_queue",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("per_day", sa.Integer(), nullable=True),
        sa.Column("account_ids", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["account_id"], ["social_account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "account_id", name="uq_posting_queue_account"),
    )
    op.create_index("ix_posting_queue_account_id", "posting_queue", ["account_id"], unique=False)
    op.create_index(
        "uq_posting_queue_workspace",
        "posting_queue",
        ["workspace_id"],
        unique=True,
        sqlite_where=sa.text("account_id IS NULL"),
        postgresql_where=sa.text("account_id IS NULL"),
    )
    op.create_table(
        "queue_slot",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("queue_id", sa.String(length=64), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("minute", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["queue_id"], ["posting_queue.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("queue_id", "weekday", "minute", name="uq_queue_slot"),
    )
    op.create_table(
        "queue_entry",
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("queue_id", sa.String(length=64), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["queue_id"], ["posting_queue.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("post_id"),
        sa.UniqueConstraint("queue_id", "due_at", name="uq_queue_entry_slot"),
    )


def downgrade() -> None:
    op.drop_table("queue_entry")
    op.drop_table("queue_slot")
    op.drop_index("uq_posting_queue_workspace", table_name="posting_queue")
    op.drop_index("ix_posting_queue_account_id", table_name="posting_queue")
    op.drop_table("posting_queue")
