"""evergreen reposts: a published post that goes out again as a fresh variation

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evergreen_plan",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("every_days", sa.Integer(), nullable=False),
        sa.Column("max_runs", sa.Integer(), nullable=True),
        sa.Column("until", sa.DateTime(), nullable=True),
        sa.Column("account_ids", sa.JSON(), nullable=False),
        sa.Column("zone", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("next_number", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.DateTime(), nullable=True),
        sa.Column("runs_written", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("post_id", name="uq_evergreen_plan_post"),
    )
    op.create_index(
        "ix_evergreen_plan_workspace_id", "evergreen_plan", ["workspace_id"], unique=False
    )
    op.create_index(
        "ix_evergreen_plan_state_next", "evergreen_plan", ["state", "next_at"], unique=False
    )
    op.create_table(
        "evergreen_run",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("plan_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["plan_id"], ["evergreen_plan.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("plan_id", "number", name="uq_evergreen_run_number"),
    )
    op.create_index("ix_evergreen_run_post_id", "evergreen_run", ["post_id"], unique=False)


def downgrade() -> None:
    op.drop_table("evergreen_run")
    op.drop_table("evergreen_plan")
