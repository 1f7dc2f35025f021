"""Reading what a test proxy wrote to its audit file."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def one_audit_record(path: Path, *, seconds: float = 30) -> dict[str, Any]:
    """The one audit record of ``path``, once written (the write follows the stream's end)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if lines:
            [line] = lines
            record: dict[str, Any] = json.loads(line)["record"]
            return record
        time.sleep(0.05)
    raise AssertionError("no audit record was written")
