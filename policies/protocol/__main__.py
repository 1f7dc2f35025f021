"""``python -m policies.protocol``: regenerate the published JSON Schema files."""

from __future__ import annotations

from policies.protocol import write_all

for path in write_all():
    print(f"wrote {path}")
