"""follow-ups under a published post: a first comment, a reply when it takes off

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "post_followup",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("delay_seconds", sa.Integer(), nullable=False),
        sa.Column("like_threshold", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("post_id", "kind", name="uq_post_followup_kind"),
    )
    op.create_index(
        "ix_post_followup_workspace_id", "post_followup", ["workspace_id"], unique=False
    )
    op.create_table(
        "followup_publication",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("workspace_id", sa.String(length=64), nullable=False),
        sa.Column("followup_id", sa.String(length=64), nullable=False),
        sa.Column("publication_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=True),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.Column("sent_text", sa.Text(), nullable=False),
        sa.Column("posted_parts", sa.JSON(), nullable=False),
        sa.Column("maybe_live_since", sa.DateTime(), nullable=True),
        sa.Column("first_attempt_at", sa.DateTime(), nullable=True),
        sa.Column("remote_id", sa.String(length=512), nullable=True),
        sa.Column("remote_url", sa.String(length=2048), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("posted_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspace.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["followup_id"], ["post_followup.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["publication_id"], ["publication.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("followup_id", "publication_id", name="uq_followup_publication"),
    )
    op.create_index(
        "ix_followup_publication_state_due",
        "followup_publication",
        ["state", "due_at"],
        unique=False,
    )
    op.create_index(
        "ix_followup_publication_workspace_id",
        "followup_publication",
        ["workspace_id"],
        unique=False,
    )
    op.create_index(
        "ix_followup_publication_publication_id",
        "followup_publication",
        ["publication_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("followup_publication")
    op.drop_table("post_followup")
