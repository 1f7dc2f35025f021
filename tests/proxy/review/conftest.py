"""Review store URLs for the review tests: an SQLite file, and the real PostgreSQL of this
machine kind (``scripts/services.sh`` starts it) in a schema of its own per test, so that
parallel runs never see each other's rows."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

POSTGRES = os.environ.get(
    "VERIPROXY_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A PostgreSQL URL whose ``search_path`` is a fresh schema, dropped afterwards."""
    schema = f"review_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{POSTGRES}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'review.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))
