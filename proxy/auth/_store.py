"""Key stores: where :class:`KeyRecord` s live. Two backends behind one async protocol.

* :class:`FileKeyStore` — one JSON file (``{"version": 1, "keys": [...]}``), written atomically
  (temp file in the same directory, fsync, ``os.replace``) under an ``fcntl`` lock, mode 0600.
  Readers re-parse only when the file's mtime/size changed, so a ``veriproxy keys revoke`` takes
  effect on a running proxy without a restart.
* :class:`RedisKeyStore` — one Redis hash field per key under ``<prefix>keys``; every replica
  sees a revoke at once.

Failures to reach or parse the store raise :class:`KeyStoreError`; the middleware turns it into
a 503 (fail closed: an unreadable store never lets a request through).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Protocol, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ._keys import KeyRecord

FILE_VERSION = 1
DEFAULT_REDIS_PREFIX = "veriproxy:"
T = TypeVar("T")


class KeyStoreError(RuntimeError):
    """The key store could not be read or written."""


class UnknownKey(KeyError):
    """No key with that id."""


class KeyStore(Protocol):
    async def get(self, key_id: str) -> KeyRecord | None: ...

    async def put(self, record: KeyRecord) -> None: ...

    async def list(self) -> list[KeyRecord]: ...

    async def revoke(self, key_id: str) -> KeyRecord: ...

    async def aclose(self) -> None: ...


class FileKeyStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stamp: tuple[int, int] | None = None
        self._records: dict[str, KeyRecord] = {}

    async def get(self, key_id: str) -> KeyRecord | None:
        return self._load().get(key_id)

    async def list(self) -> list[KeyRecord]:
        return sorted(self._load().values(), key=lambda r: r.created_at)

    async def put(self, record: KeyRecord) -> None:
        with self._locked():
            records = self._load()
            self._write({**records, record.key_id: record})

    async def revoke(self, key_id: str) -> KeyRecord:
        with self._locked():
            records = self._load()
            if key_id not in records:
                raise UnknownKey(key_id)
            revoked = records[key_id] if records[key_id].revoked else records[key_id].revoke()
            self._write({**records, key_id: revoked})
            return revoked

    async def aclose(self) -> None:
        return None

    def _load(self) -> dict[str, KeyRecord]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._records = None, {}
            return {}
        except OSError as exc:
            raise KeyStoreError(f"key file {self.path}: {exc.strerror}") from None
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._records = self._parse()
            self._stamp = stamp
        return self._records

    def _parse(self) -> dict[str, KeyRecord]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("version") != FILE_VERSION:
                raise ValueError(f"expected a mapping with version {FILE_VERSION}")
            keys = data.get("keys")
            if not isinstance(keys, list):
                raise ValueError("'keys' must be a list")
            records = [KeyRecord.from_dict(k) for k in keys]
        except (OSError, ValueError, AttributeError) as exc:
            raise KeyStoreError(f"key file {self.path} is unreadable: {exc}") from None
        return {r.key_id: r for r in records}

    def _write(self, records: dict[str, KeyRecord]) -> None:
        body = {"version": FILE_VERSION, "keys": [r.to_dict() for r in records.values()]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".keys-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        self._stamp = None  # re-read on next access, whatever the clock resolution

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise read-modify-write cycles between concurrent CLI runs."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


class RedisKeyStore:
    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_REDIS_PREFIX,
        timeout: float = 2.0,
    ) -> None:
        self._redis = aioredis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self._hash = f"{prefix}keys"

    async def get(self, key_id: str) -> KeyRecord | None:
        raw = await self._call(self._redis.hget(self._hash, key_id))
        return None if raw is None else _decode(raw)

    async def list(self) -> list[KeyRecord]:
        raw = await self._call(self._redis.hgetall(self._hash))
        return sorted((_decode(v) for v in raw.values()), key=lambda r: r.created_at)

    async def put(self, record: KeyRecord) -> None:
        await self._call(self._redis.hset(self._hash, record.key_id, json.dumps(record.to_dict())))

    async def revoke(self, key_id: str) -> KeyRecord:
        record = await self.get(key_id)
        if record is None:
            raise UnknownKey(key_id)
        if not record.revoked:
            record = record.revoke()
            await self.put(record)
        return record

    async def aclose(self) -> None:
        await self._redis.aclose()

    async def _call(self, awaitable: Awaitable[T]) -> T:
        try:
            return await awaitable
        except (RedisError, OSError) as exc:
            raise KeyStoreError(f"key store unavailable ({type(exc).__name__})") from None


def _decode(raw: bytes | str) -> KeyRecord:
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not a mapping")
        return KeyRecord.from_dict(data)
    except ValueError as exc:
        raise KeyStoreError(f"malformed key record in Redis: {exc}") from None


async def store_readiness(store: KeyStore) -> str | None:
    """A ``/readyz`` check: None while the store answers (one lookup of an unknown id), else
    the reason. Without it a replica whose Redis key store is down says "ready" and answers
    every request 503."""
    try:
        await store.get("readiness-probe")
    except KeyStoreError as exc:
        return str(exc)
    return None


def open_store(url: str) -> KeyStore:
    """``redis://…``/``rediss://…`` → :class:`RedisKeyStore`; anything else is a file path."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisKeyStore(url)
    return FileKeyStore(url.removeprefix("file://"))
