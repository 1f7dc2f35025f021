"""Fixtures for tests/deploy: the parsed dashboard and compose file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from deployfiles import DASHBOARDS, DEPLOY, load_yaml


@pytest.fixture(scope="session")
def dashboard() -> dict[str, Any]:
    return json.loads((DASHBOARDS / "veriproxy.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def compose() -> dict[str, Any]:
    return load_yaml(DEPLOY / "compose.yaml")
