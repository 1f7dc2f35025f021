"""Review store URLs for the review tests: an SQLite file, and the real PostgreSQL in a schema
of its own per test (see :mod:`tests.proxy.postgres_helpers`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.proxy.postgres_helpers import private_schema


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'review.sqlite'}"
        return
    with private_schema() as url:
        yield url
