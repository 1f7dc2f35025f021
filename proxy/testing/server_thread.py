"""Run an ASGI app under a real uvicorn server on a free loopback port, in a background thread.

Used by the test fixtures and the benchmarks::

    with ServerThread(Emulator().app()) as server:
        httpx.get(server.url + "/v1/models")

The socket is bound before the thread starts (port 0: the OS picks a free port), so ``url`` is
known at once; ``__enter__`` returns when uvicorn has finished its lifespan startup. Signal
handlers are not installed (uvicorn only installs them on the main thread).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp

from proxy.config import Settings
from proxy.testing.emulator import Emulator, EmulatorStats

STARTUP_TIMEOUT_S = 15.0


class ServerThread:
    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", **config: Any) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.host, self.port = self._sock.getsockname()[:2]
        options: dict[str, Any] = {
            "log_level": "warning",
            "access_log": False,
            "lifespan": "on",
            "ws": "none",
            "timeout_graceful_shutdown": 5,
        }
        options.update(config)
        self.server = uvicorn.Server(uvicorn.Config(app, **options))
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()  # closes the listening socket too
                raise RuntimeError("server thread failed to start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=STARTUP_TIMEOUT_S)
        self._sock.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@dataclass(frozen=True)
class RunningEmulator:
    emulator: Emulator
    url: str

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def stats(self) -> EmulatorStats:
        return self.emulator.stats


@dataclass(frozen=True)
class RunningProxy:
    app: Starlette
    settings: Settings
    url: str

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"
