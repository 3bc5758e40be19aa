"""carousels

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "carousel",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("post_id", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("template", sa.String(length=64), nullable=False),
        sa.Column("theme", sa.JSON(), nullable=False),
        sa.Column("handle", sa.String(length=100), nullable=True),
        sa.Column("author_name", sa.String(length=200), nullable=True),
        sa.Column("profile_image_url", sa.String(length=2048), nullable=True),
        sa.Column("profile_image_file", sa.String(length=300), nullable=True),
        sa.Column("logo_file", sa.String(length=300), nullable=True),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("pdf_file", sa.String(length=300), nullable=False),
        sa.Column("thumbnail_file", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user_account.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("carousel", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_carousel_post_id"), ["post_id"], unique=False)
        batch_op.create_index(
            "ix_carousel_workspace_created", ["workspace_id", "created_at"], unique=False
        )

    op.create_table(
        "carousel_slide",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("carousel_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("image_prompt", sa.Text(), nullable=False),
        sa.Column("image_file", sa.String(length=300), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["carousel_id"], ["carousel.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("carousel_id", "position", name="uq_carousel_slide_position"),
    )
    with op.batch_alter_table("carousel_slide", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_carousel_slide_carousel_id"), ["carousel_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("carousel_slide", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_carousel_slide_carousel_id"))

    op.drop_table("carousel_slide")
    with op.batch_alter_table("carousel", schema=None) as batch_op:
        batch_op.drop_index("ix_carousel_workspace_created")
        batch_op.drop_index(batch_op.f("ix_carousel_post_id"))

    op.drop_table("carousel")
