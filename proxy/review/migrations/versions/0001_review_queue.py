"""The review queue: sampled sentences and reviewers' labels.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "review_items",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("request_id", sa.String(200), nullable=False),
        sa.Column("choice", sa.Integer, nullable=False),
        sa.Column("sentence", sa.Integer, nullable=False),
        sa.Column("tenant", sa.String(200), nullable=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("verdict", sa.String(32), nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("harm", sa.Integer, nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("response_status", sa.String(16), nullable=False),
        sa.Column("response_sentences", sa.Integer, nullable=False),
        sa.Column("needs_review", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("inclusion", sa.Float, nullable=False),
        sa.Column("response_inclusion", sa.Float, nullable=True),
        sa.Column("evidence", sa.JSON, nullable=False),
        sa.Column("failed_checks", sa.JSON, nullable=False),
        sa.Column("rules_fired", sa.JSON, nullable=False),
        sa.Column("decided_by", sa.String(200), nullable=False),
        sa.UniqueConstraint("request_id", "choice", "sentence", name="uq_review_items_sentence"),
    )
    op.create_index("ix_review_items_tenant", "review_items", ["tenant"])
    op.create_index("ix_review_items_day", "review_items", ["day"])
    op.create_table(
        "review_labels",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("item_id", sa.Integer, sa.ForeignKey("review_items.id"), nullable=False),
        sa.Column("reviewer", sa.String(64), nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("verdict", sa.String(32), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("item_id", "reviewer", name="uq_review_labels_reviewer"),
    )
    op.create_index("ix_review_labels_item_id", "review_labels", ["item_id"])


def downgrade() -> None:
    op.drop_table("review_labels")
    op.drop_table("review_items")
