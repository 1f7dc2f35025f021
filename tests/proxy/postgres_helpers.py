"""Real PostgreSQL for the review store tests: the server this machine kind runs on
127.0.0.1:5432 (``scripts/services.sh`` starts it), each test under a schema of its own,
dropped afterwards, so parallel runs never see each other's rows."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text

SERVER = os.environ.get(
    "VERIPROXY_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@contextmanager
def private_schema() -> Iterator[str]:
    """A store URL whose ``search_path`` is a fresh schema."""
    schema = f"review_{uuid.uuid4().hex[:12]}"
    admin = create_engine(SERVER)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{SERVER}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
