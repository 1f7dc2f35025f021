"""Serve an ASGI app under uvicorn on a free loopback port, inside the running event loop.

``veriproxy demo`` runs the proxy this way and is its own first client: no thread, no second
process. uvicorn's signal handlers are left out so that Ctrl+C reaches the caller (as
``KeyboardInterrupt`` through ``asyncio.run``) whatever it is doing; leaving the context then
stops the server gracefully, lifespan shutdown included.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Generator
from contextlib import asynccontextmanager, contextmanager

import uvicorn
from starlette.types import ASGIApp

POLL_S = 0.05
SHUTDOWN_S = 5  # open streams (a playground tab) get this long to finish on Ctrl+C


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handlers (see the module docstring)."""

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


@asynccontextmanager
async def serving(app: ASGIApp, host: str = "127.0.0.1") -> AsyncIterator[str]:
    """The app served at the yielded URL (``http://host:port``) until the context is left."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))  # port 0: the OS picks a free port, known before uvicorn starts
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="on",
            ws="none",
            timeout_graceful_shutdown=SHUTDOWN_S,
        )
        server = _Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            while not server.started:
                if task.done():  # the lifespan failed; uvicorn logged why
                    raise RuntimeError("the server did not start")
                await asyncio.sleep(POLL_S)
            yield f"http://{host}:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True
            await task
