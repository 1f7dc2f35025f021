"""The review store on SQLite and on the real PostgreSQL: Alembic's schema, idempotent items,
the daily cap, what a reviewer is offered, and labels that cannot be given twice."""

from __future__ import annotations

from dataclasses import replace

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from proxy.review.items import Label
from proxy.review.store import VERSION_TABLE, DuplicateLabel, engine_for, migrate, open_store
from proxy.review.tables import metadata
from tests.proxy.review.factory import NOW, item


def test_the_migrations_build_exactly_the_declared_tables(store_url: str) -> None:
    engine = engine_for(store_url)
    migrate(engine)
    migrate(engine)  # a second start finds the schema at head and changes nothing
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        diff = compare_metadata(context, metadata)
        tables = set(inspect(conn).get_table_names())
    engine.dispose()
    assert diff == []
    assert {"review_items", "review_labels", VERSION_TABLE} <= tables


def test_items_round_trip_and_a_sentence_is_stored_once(store_url: str) -> None:
    store = open_store(store_url)
    first = item("req-1", 0, response_inclusion=0.5)
    assert store.add_items([first, item("req-1", 1)]) == 2
    assert store.add_items([first]) == 0  # the same sentence offered again (a retry)
    found = store.pending("clinic", "reviewer-a", needed=2, limit=10)
    store.close()
    assert [x.sentence for x in found] == [0, 1]
    assert replace(found[0], id=None) == first


def test_the_daily_cap_drops_drawn_items_but_never_forced_ones(store_url: str) -> None:
    store = open_store(store_url)
    drawn = [item(f"req-{i}", inclusion=0.1) for i in range(5)]
    forced = [item(f"forced-{i}", reason="action") for i in range(3)]
    next_day = item("req-tomorrow", inclusion=0.1, time=NOW + 86_400)
    stored = store.add_items([*drawn, *forced, next_day], daily_cap=2)
    count = store.count_items()
    store.close()
    assert (stored, count) == (2 + 3 + 1, 6)


def test_a_reviewer_is_offered_their_tenants_unlabelled_items_until_two_labels(
    store_url: str,
) -> None:
    store = open_store(store_url)
    store.add_items([item("a"), item("b"), item("other", tenant="other")])
    a, b = store.pending("clinic", "r1", needed=2, limit=10)
    assert a.id is not None and b.id is not None
    store.add_label(Label(a.id, "r1", True, "supported", "", NOW))
    assert [x.request_id for x in store.pending("clinic", "r1", 2, 10)] == ["b"]
    assert [x.request_id for x in store.pending("clinic", "r2", 2, 10)] == ["a", "b"]
    store.add_label(Label(a.id, "r2", False, "unsupported", "dose not in the abstract", NOW))
    assert [x.request_id for x in store.pending("clinic", "r3", 2, 10)] == ["b"]
    assert store.item(a.id, "other") is None  # another tenant's id reads as unknown
    with pytest.raises(DuplicateLabel):
        store.add_label(Label(a.id, "r1", False, "contradicted", "", NOW))
    (found,) = store.labelled("clinic")
    store.close()
    assert [(x.reviewer, x.verdict) for x in found.labels] == [
        ("r1", "supported"),
        ("r2", "unsupported"),
    ]
