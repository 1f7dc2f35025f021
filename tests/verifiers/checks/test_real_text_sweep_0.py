"""The real-text sweep, shard 0 of ``real_text.SHARDS``: see ``real_text``."""

from pathlib import Path

import pytest

from tests.verifiers.checks.real_text import DATA, source_id, sources, sweep

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


@pytest.mark.slow
@pytest.mark.parametrize("source", sources(), ids=source_id)
def test_checks_run_on_every_text(source: Path) -> None:
    sweep(source, shard=0)
