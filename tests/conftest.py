"""Shared end-to-end fixtures: a real upstream emulator and a real proxy, both on loopback.

* ``emulator`` -- :class:`proxy.testing.emulator.Emulator` served by uvicorn on a free port. Use
  ``emulator.base_url`` as an OpenAI ``base_url``; ``emulator.emulator.reply`` sets the answer;
  ``emulator.stats`` records requests and stream cancellations.
* ``proxy_factory(config=None, **create_app_kwargs)`` -- starts a proxy whose default upstream
  is the emulator; ``config`` is merged over that (same keys as the YAML file), the keyword
  arguments go to ``create_app`` (``extensions=``, ``middleware=``, ...).
* ``proxy`` -- ``proxy_factory()`` with defaults. ``proxy.base_url`` goes to ``openai.OpenAI``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import openai
import pytest

from proxy.app import create_app
from proxy.config import settings_from_mapping
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import RunningEmulator, RunningProxy, ServerThread

ProxyFactory = Callable[..., RunningProxy]


@pytest.fixture(scope="session")
def _emulator_server() -> Iterator[RunningEmulator]:
    emu = Emulator()
    with ServerThread(emu.app()) as server:
        yield RunningEmulator(emu, server.url)


@pytest.fixture
def emulator(_emulator_server: RunningEmulator) -> RunningEmulator:
    """The shared emulator, reset to its defaults (echo, no stats) for each test."""
    _emulator_server.emulator.reset()
    return _emulator_server


@pytest.fixture
def proxy_factory(emulator: RunningEmulator) -> Iterator[ProxyFactory]:
    servers: list[ServerThread] = []

    def start(config: Mapping[str, Any] | None = None, **app_kwargs: Any) -> RunningProxy:
        # Passthrough unless a test turns retrieval or verification on: most tests check that
        # bytes round-trip.
        raw: dict[str, Any] = {
            "default_upstream": {"base_url": emulator.base_url},
            "retrieval": {"enabled": False},
            "verification": {"enabled": False},
        }
        raw.update(config or {})
        settings = settings_from_mapping(raw, environ={})
        app = create_app(settings, **app_kwargs)
        server = ServerThread(app).start()
        servers.append(server)
        return RunningProxy(app, settings, server.url)

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def proxy(proxy_factory: ProxyFactory) -> RunningProxy:
    return proxy_factory()


_OPEN_CLIENTS: list[openai.OpenAI] = []


def sdk_client(base_url: str, api_key: str = "sk-test", **options: Any) -> openai.OpenAI:
    """The real openai SDK client, closed when the test ends (see ``_close_sdk_clients``)."""
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, **options)
    _OPEN_CLIENTS.append(client)
    return client


@pytest.fixture(autouse=True)
def _close_sdk_clients() -> Iterator[None]:
    """An SDK client left open keeps a pooled socket until the garbage collector finds it,
    often during a later test, which then fails on the ResourceWarning."""
    yield
    while _OPEN_CLIENTS:
        _OPEN_CLIENTS.pop().close()
