"""Fixtures for the playground tests: the demo stack (emulator replaying the recorded answers,
a real proxy with retrieval and verification), the same stack with an LLM judge (a scripted
emulator), the same stack behind proxy keys with an audit log that keeps text (for the
reviewer role), and headless Chromium driven by Selenium.

Browser tests skip, saying why, only when no Chromium binary is installed
(``scripts/services.sh`` installs it and its driver)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from starlette.applications import Starlette

from proxy.app import create_app
from proxy.auth import REVIEWER, FileKeyStore, new_key
from proxy.cli.demo import Replay, demo_config, load_recorded
from proxy.config import Settings, settings_from_mapping
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import RunningProxy, ServerThread
from tests.proxy.postgres_helpers import private_schema
from tests.verifiers.judge.scripted import judge_reply

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(__file__).parents[1] / "artifacts"
VERIFY_TIMEOUT_S = 120
JUDGE = "judge-llm"  # the judged stack's models: entry for its LLM judge
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@pytest.fixture(scope="session")
def demo_upstream() -> Iterator[str]:
    """The emulator replaying the demo's recorded answers: its URL."""
    emulator = Emulator(reply=Replay(load_recorded()), drip_s=0.01)
    with ServerThread(emulator.app()) as upstream:
        yield upstream.url


def _demo_stack(
    upstream: str, escalate: dict[str, Any] | None = None, **extra: Any
) -> tuple[Starlette, Settings]:
    raw: dict[str, Any] = demo_config(f"{upstream}/v1")
    raw["verification"]["verifier"] = {"nli": {"name": "bundled", "threads": 1}}
    if escalate is not None:
        raw["verification"]["verifier"]["escalate"] = escalate
    raw.setdefault("models", {}).update(extra.pop("models", {}))
    # A shared CI machine can take longer than the default 20 s to verify an answer; the tests
    # are about what the page shows of a verified answer, not about the timeout.
    raw["verification"]["timeout_seconds"] = VERIFY_TIMEOUT_S
    raw.update(extra)
    settings = settings_from_mapping(raw, environ={})
    return create_app(settings), settings


@pytest.fixture(scope="session")
def demo_proxy(demo_upstream: str) -> Iterator[RunningProxy]:
    """The proxy as ``veriproxy demo`` runs it, with the bundled NLI on one thread."""
    app, settings = _demo_stack(demo_upstream)
    with ServerThread(app) as server:
        yield RunningProxy(app, settings, server.url)


@pytest.fixture(scope="session")
def judged_proxy(demo_upstream: str) -> Iterator[RunningProxy]:
    """The demo stack with every claim escalated to an LLM judge: a second emulator, scripted
    to call every claim supported, quoting the first window it was shown."""
    judge = Emulator(reply=judge_reply("supported"))
    with ServerThread(judge.app()) as judge_server:
        app, settings = _demo_stack(
            demo_upstream,
            escalate={"judge": JUDGE, "when": [{"name": "every_claim", "confidence_below": 1.0}]},
            models={JUDGE: {"base_url": f"{judge_server.url}/v1", "api_key": "sk-judge"}},
        )
        with ServerThread(app) as server:
            yield RunningProxy(app, settings, server.url)


@dataclass(frozen=True, slots=True)
class ReviewedProxy:
    """The demo stack behind proxy keys, auditing to ``audit`` with text kept."""

    proxy: RunningProxy
    reviewer: str  # tenant "clinic", with the reviewer role
    caller: str  # tenant "clinic", no role
    outsider: str  # tenant "other", with the reviewer role
    audit: Path


@pytest.fixture(scope="session")
def reviewed_proxy(
    demo_upstream: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ReviewedProxy]:
    root = tmp_path_factory.mktemp("reviewed")
    store = FileKeyStore(root / "keys.json")
    keys = [
        new_key("clinic", roles=(REVIEWER,)),
        new_key("clinic"),
        new_key("other", roles=(REVIEWER,)),
    ]
    for _, record in keys:
        asyncio.run(store.put(record))
    audit = root / "audit.jsonl"
    app, settings = _demo_stack(
        demo_upstream,
        auth={"store": str(root / "keys.json")},
        audit={"jsonl": str(audit), "include_text": True},
    )
    with ServerThread(app) as server:
        proxy = RunningProxy(app, settings, server.url)
        yield ReviewedProxy(proxy, keys[0][0], keys[1][0], keys[2][0], audit)


@dataclass(frozen=True, slots=True)
class ReviewStack:
    """The demo stack behind proxy keys with the review queue on, its store in PostgreSQL."""

    proxy: RunningProxy
    first: str  # tenant "clinic", reviewer
    second: str  # tenant "clinic", reviewer
    caller: str  # tenant "clinic", no role
    audit: Path
    store: str  # the review store's URL


# Every supported sentence and every sentence a policy acted on; no other.
REVIEW_RATES = {"default_rate": 0.0, "rates": {"supported": 1.0}, "verified_response_rate": 1.0}


@pytest.fixture(scope="module")
def review_stack(
    demo_upstream: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ReviewStack]:
    root = tmp_path_factory.mktemp("review")
    store = FileKeyStore(root / "keys.json")
    keys = [
        new_key("clinic", roles=(REVIEWER,)),
        new_key("clinic", roles=(REVIEWER,)),
        new_key("clinic"),
    ]
    for _, record in keys:
        asyncio.run(store.put(record))
    audit = root / "audit.jsonl"
    with private_schema() as url:
        app, settings = _demo_stack(
            demo_upstream,
            auth={"store": str(root / "keys.json")},
            audit={"jsonl": str(audit), "include_text": True},
            review={"enabled": True, "store": url, **REVIEW_RATES},
        )
        with ServerThread(app) as server:
            proxy = RunningProxy(app, settings, server.url)
            yield ReviewStack(proxy, keys[0][0], keys[1][0], keys[2][0], audit, url)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no Chromium binary installed (run scripts/services.sh)")
    if CHROMEDRIVER is None:
        pytest.fail("Chromium is installed but chromedriver is not (run scripts/services.sh)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_argument("--window-size=1280,900")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
