"""Real Redis for the state, rate-limit and audit tests: the shared server on 6379 (each test
under its own key prefix in DB 9, deleted afterwards) or a private ``redis-server`` that a
test may kill and restart."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

SHARED_URL = "redis://127.0.0.1:6379/9"


def fresh_prefix() -> str:
    return f"vptest:{uuid.uuid4().hex[:12]}:"


def delete_prefix(prefix: str, url: str = SHARED_URL) -> None:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A redis-server of our own, persisting every write (appendfsync always) so a restart
    loses nothing; ``kill`` is SIGKILL, as a crash would be."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (scripts/services.sh installs it)")
        self._binary = binary
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(
            [
                self._binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.directory), "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--daemonize", "no",
                "--logfile", str(self.directory / "redis.log"),
            ],
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_timeout=0.2)
        try:
            for _ in range(100):
                try:
                    if client.ping():
                        return
                except redis.exceptions.ConnectionError:
                    time.sleep(0.05)
            raise RuntimeError("private redis-server did not start")
        finally:
            client.close()

    def kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


@contextmanager
def private_redis(directory: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(directory)
    server.start()
    try:
        yield server
    finally:
        server.kill()
