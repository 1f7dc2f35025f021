"""The review store: sampled items and reviewers' labels in SQLite (embedded default) or
PostgreSQL (``review.store: postgresql://…``, driven by psycopg 3), through SQLAlchemy Core.

The schema is Alembic's: :func:`open_store` brings it to the newest migration before first use.
Calls are synchronous (the queue runs them in a worker thread), and each is one transaction.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, and_, create_engine, func, select
from sqlalchemy.engine import Connection, RowMapping, make_url
from sqlalchemy.exc import IntegrityError

from proxy.review.items import FailedCheck, Label, Labelled, Quote, ReviewItem
from proxy.review.tables import items, labels

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "review_alembic_version"  # Alembic's own, named apart from an app's in one DB


class DuplicateLabel(Exception):
    """This reviewer has labelled this item already (labels are never changed)."""


def engine_for(url: str) -> Engine:
    """``postgresql://`` means psycopg 3 here (SQLAlchemy's default would be psycopg2)."""
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return create_engine(parsed, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the schema to Alembic's head (creates it on first use)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        config.attributes["version_table"] = VERSION_TABLE
        command.upgrade(config, "head")


def open_store(url: str) -> ReviewStore:
    engine = engine_for(url)
    migrate(engine)
    return ReviewStore(engine)


class ReviewStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_items(self, batch: Sequence[ReviewItem], daily_cap: int | None = None) -> int:
        """Store new items, returning how many were stored. Items drawn at random beyond
        ``daily_cap`` for their UTC day are dropped; those a rule sent always enter. A sentence
        already stored (the same request id, choice and index) is skipped."""
        stored = 0
        with self.engine.begin() as conn:
            for item in batch:
                day = _day(item.time)
                if (
                    daily_cap is not None
                    and item.inclusion < 1
                    and _sampled_on(conn, day) >= daily_cap
                ):
                    continue
                try:
                    with conn.begin_nested():  # a duplicate rolls back to here, not the batch
                        conn.execute(items.insert().values(_item_row(item, day)))
                except IntegrityError:
                    continue
                stored += 1
        return stored

    def pending(self, tenant: str, reviewer: str, needed: int, limit: int) -> list[ReviewItem]:
        """Items of ``tenant`` this reviewer has not labelled and that have fewer than
        ``needed`` labels, oldest first."""
        mine = select(labels.c.item_id).where(labels.c.reviewer == reviewer)
        count = (
            select(func.count())
            .where(labels.c.item_id == items.c.id)
            .correlate(items)
            .scalar_subquery()
        )
        query = (
            select(items)
            .where(items.c.tenant == tenant, items.c.id.not_in(mine), count < needed)
            .order_by(items.c.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_item(row) for row in conn.execute(query).mappings()]

    def item(self, item_id: int, tenant: str) -> ReviewItem | None:
        query = select(items).where(and_(items.c.id == item_id, items.c.tenant == tenant))
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else _item(row)

    def add_label(self, label: Label) -> None:
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    labels.insert().values(
                        item_id=label.item_id,
                        reviewer=label.reviewer,
                        correct=label.correct,
                        verdict=label.verdict,
                        note=label.note,
                        created=label.time,
                    )
                )
        except IntegrityError as exc:
            raise DuplicateLabel(f"item {label.item_id} is labelled by this reviewer") from exc

    def labelled(self, tenant: str | None = None) -> list[Labelled]:
        """Every item with at least one label (of ``tenant``, or of all)."""
        query = select(items).where(items.c.id.in_(select(labels.c.item_id)))
        if tenant is not None:
            query = query.where(items.c.tenant == tenant)
        with self.engine.connect() as conn:
            found = [_item(row) for row in conn.execute(query.order_by(items.c.id)).mappings()]
            by_item: dict[int, list[Label]] = {}
            rows = conn.execute(select(labels).order_by(labels.c.created, labels.c.id))
            for row in rows.mappings():
                by_item.setdefault(row["item_id"], []).append(_label(row))
        return [Labelled(item, tuple(by_item[item.id])) for item in found if item.id in by_item]

    def count_items(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(items)).scalar_one())

    def close(self) -> None:
        self.engine.dispose()


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _sampled_on(conn: Connection, day: str) -> int:
    query = select(func.count()).where(items.c.day == day, items.c.inclusion < 1)
    return int(conn.execute(query).scalar_one())


def _item_row(item: ReviewItem, day: str) -> dict[str, Any]:
    row = item.to_dict()
    del row["id"]
    created = row.pop("time")
    return {
        **row,
        "created": created,
        "day": day,
        "response_sentences": item.response_sentences,
        "response_inclusion": item.response_inclusion,
    }


def _item(row: RowMapping) -> ReviewItem:
    return ReviewItem(
        id=row["id"],
        request_id=row["request_id"],
        choice=row["choice"],
        sentence=row["sentence"],
        tenant=row["tenant"],
        model=row["model"],
        time=row["created"],
        text=row["text"],
        verdict=row["verdict"],
        confidence=row["confidence"],
        harm=row["harm"],
        action=row["action"],
        response_status=row["response_status"],
        response_sentences=row["response_sentences"],
        needs_review=row["needs_review"],
        reason=row["reason"],
        inclusion=row["inclusion"],
        response_inclusion=row["response_inclusion"],
        evidence=tuple(Quote(**q) for q in row["evidence"]),
        failed_checks=tuple(FailedCheck(**c) for c in row["failed_checks"]),
        rules_fired=tuple(row["rules_fired"]),
        decided_by=row["decided_by"],
    )


def _label(row: RowMapping) -> Label:
    return Label(
        item_id=row["item_id"],
        reviewer=row["reviewer"],
        correct=row["correct"],
        verdict=row["verdict"],
        note=row["note"],
        time=row["created"],
    )
