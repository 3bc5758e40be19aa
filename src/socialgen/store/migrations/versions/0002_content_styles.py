"""content styles

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "content_style",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("profile", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user_account.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("content_style", schema=None) as batch_op:
        batch_op.create_index(
            "ix_content_style_workspace_created", ["workspace_id", "created_at"], unique=False
        )

    op.create_table(
        "style_post",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("style_id", sa.String(length=64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["style_id"], ["content_style.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("style_post", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_style_post_style_id"), ["style_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("style_post", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_style_post_style_id"))

    op.drop_table("style_post")
    with op.batch_alter_table("content_style", schema=None) as batch_op:
        batch_op.drop_index("ix_content_style_workspace_created")

    op.drop_table("content_style")
