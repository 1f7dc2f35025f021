"""The review store's tables (SQLAlchemy Core). The schema itself is created and changed only by
the Alembic migrations in ``migrations/versions``; a test checks that the two agree."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

items = Table(
    "review_items",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("request_id", String(200), nullable=False),
    Column("choice", Integer, nullable=False),
    Column("sentence", Integer, nullable=False),
    Column("tenant", String(200), nullable=True, index=True),
    Column("model", String(200), nullable=False),
    Column("created", Float, nullable=False),
    Column("day", String(10), nullable=False, index=True),  # UTC date, for the daily cap
    Column("text", Text, nullable=False),
    Column("verdict", String(32), nullable=False),
    Column("confidence", Float, nullable=False),
    Column("harm", Integer, nullable=False),
    Column("action", String(16), nullable=False),
    Column("response_status", String(16), nullable=False),
    Column("response_sentences", Integer, nullable=False),
    Column("needs_review", Boolean, nullable=False),
    Column("reason", String(16), nullable=False),
    Column("inclusion", Float, nullable=False),
    Column("response_inclusion", Float, nullable=True),
    Column("evidence", JSON, nullable=False),
    Column("failed_checks", JSON, nullable=False),
    Column("rules_fired", JSON, nullable=False),
    Column("decided_by", String(200), nullable=False),
    UniqueConstraint("request_id", "choice", "sentence", name="uq_review_items_sentence"),
)

labels = Table(
    "review_labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", Integer, ForeignKey("review_items.id"), nullable=False, index=True),
    Column("reviewer", String(64), nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("verdict", String(32), nullable=False),
    Column("note", Text, nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("item_id", "reviewer", name="uq_review_labels_reviewer"),
)
