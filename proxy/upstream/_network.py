"""A lean asyncio network backend for httpcore, with request writes coalesced.

httpx's default backend goes through anyio (a cancel scope and checkpoints per socket
operation) and writes a request's head and body as two ``send`` calls, which wakes the upstream
twice. On the proxy's hot path both costs show, so for HTTP/1.1 upstreams the shared transport uses
this backend instead: plain asyncio streams, and writes held back until the next read (httpcore
always reads the response after writing the request), so head and body leave in one segment.

HTTP/2 multiplexes several requests over one connection, where holding writes until "this"
stream's next read could stall another; with ``http2: true`` the default backend is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import certifi
import httpcore
import httpx
from httpcore import AsyncNetworkBackend, AsyncNetworkStream

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)
READ_LIMIT = 2**16


class CoalescingStream(AsyncNetworkStream):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._pending: list[bytes] = []

    async def _flush(self, timeout: float | None) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        try:
            self._writer.write(data)
            if self._writer.transport.get_write_buffer_size():
                async with asyncio.timeout(timeout):
                    await self._writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(str(exc)) from exc
        except (OSError, RuntimeError) as exc:
            raise httpcore.WriteError(str(exc)) from exc

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        await self._flush(timeout)
        try:
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self._pending.append(buffer)

    async def aclose(self) -> None:
        self._pending.clear()
        self._writer.close()
        with contextlib.suppress(OSError):  # the peer already dropped it; closed either way
            await self._writer.wait_closed()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncNetworkStream:
        await self._flush(timeout)
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as exc:
            await self.aclose()
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            await self.aclose()
            raise httpcore.ConnectError(str(exc)) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        transport = self._writer.transport
        if info == "ssl_object":
            return transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return transport.get_extra_info("sockname")
        if info == "server_addr":
            return transport.get_extra_info("peername")
        if info == "socket":
            return transport.get_extra_info("socket")
        if info == "is_readable":
            # httpcore asks before reusing a pooled connection: readable means closed by peer.
            return self._reader.at_eof()
        return None


class CoalescingBackend(AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host,
                    port,
                    local_addr=(local_address, 0) if local_address else None,
                    limit=READ_LIMIT,
                )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock = writer.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for option in socket_options or ():
                sock.setsockopt(*option)
        return CoalescingStream(reader, writer)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_unix_connection(path, limit=READ_LIMIT)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return CoalescingStream(reader, writer)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class CoalescingTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport (request/response mapping, exception mapping) over
    :class:`CoalescingBackend`; HTTP/1.1 only."""

    def __init__(self, limits: httpx.Limits) -> None:
        super().__init__(limits=limits, trust_env=False)
        # httpx builds its pool without a way to pass a backend; build the same pool with one.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl.create_default_context(cafile=certifi.where()),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=CoalescingBackend(),
        )
