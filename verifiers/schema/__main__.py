"""``python -m verifiers.schema``: regenerate the published JSON Schema files."""

from __future__ import annotations

from verifiers.schema import write_all

for path in write_all():
    print(f"wrote {path}")
