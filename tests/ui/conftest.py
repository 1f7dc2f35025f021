"""Fixtures for the playground tests: the demo stack (emulator replaying the recorded answers,
a real proxy with retrieval and verification) and headless Chromium driven by Selenium.

Browser tests skip, saying why, only when no Chromium binary is installed
(``scripts/services.sh`` installs it and its driver)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from proxy.app import create_app
from proxy.cli.demo import Replay, demo_config, load_recorded
from proxy.config import settings_from_mapping
from proxy.emulator import Emulator
from proxy.server_thread import RunningProxy, ServerThread

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(__file__).parents[1] / "artifacts"
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
def demo_proxy() -> Iterator[RunningProxy]:
    """The proxy as ``veriproxy demo`` runs it, with the bundled NLI on one thread."""
    emulator = Emulator(reply=Replay(load_recorded()), drip_s=0.01)
    with ServerThread(emulator.app()) as upstream:
        raw: dict[str, Any] = demo_config(f"{upstream.url}/v1")
        raw["verification"]["verifier"] = {"nli": {"name": "bundled", "threads": 1}}
        settings = settings_from_mapping(raw, environ={})
        app = create_app(settings)
        with ServerThread(app) as server:
            yield RunningProxy(app, settings, server.url)


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
