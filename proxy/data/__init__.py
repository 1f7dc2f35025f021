"""Data shipped with the proxy: the demo evidence index (PubMedQA's 1,000 abstracts)."""

from __future__ import annotations

from pathlib import Path

DEMO_INDEX = Path(__file__).parent / "demo_pubmedqa.sqlite"
