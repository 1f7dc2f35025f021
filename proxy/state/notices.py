"""Notices to every replica (policy reloads) over Redis pub/sub, or in-process without Redis.

Pub/sub drops messages sent while a subscriber is disconnected, so after every (re)connection
the listener delivers a ``resync`` notice: receivers reload what they would have been told
about, which is how a replica catches up once Redis returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from proxy.state._redis import UNREACHABLE_ERRORS, RedisLink, Unavailable

log = logging.getLogger("veriproxy.state")

POLICY_RELOAD: Final = "policy_reload"
RESYNC: Final = "resync"


@dataclass(frozen=True, slots=True)
class Notice:
    kind: str
    origin: str  # the publishing replica's id; receivers may skip their own notices
    data: Mapping[str, str] = field(default_factory=dict)


Handler = Callable[[Notice], Awaitable[None]]


class Notices(Protocol):
    replica_id: str

    async def publish(self, kind: str, data: Mapping[str, str] | None = None) -> None: ...

    def subscribe(self, handler: Handler) -> None: ...

    async def start(self) -> None: ...

    async def aclose(self) -> None: ...


async def _deliver(handlers: list[Handler], notice: Notice) -> None:
    for handler in handlers:
        try:
            await handler(notice)
        except Exception:  # one bad handler must not stop the others or the listener
            log.exception("notice handler failed for %s", notice.kind)


class LocalNotices:
    """In-process delivery, for a single replica without Redis."""

    def __init__(self) -> None:
        self.replica_id = uuid.uuid4().hex
        self._handlers: list[Handler] = []

    async def publish(self, kind: str, data: Mapping[str, str] | None = None) -> None:
        await _deliver(self._handlers, Notice(kind, self.replica_id, dict(data or {})))

    def subscribe(self, handler: Handler) -> None:
        self._handlers.append(handler)

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class RedisNotices:
    """Pub/sub on one channel; a background task listens and reconnects."""

    def __init__(self, link: RedisLink, reconnect_seconds: float = 0.5) -> None:
        self.replica_id = uuid.uuid4().hex
        self._link = link
        self._channel = link.key("notices")
        self._handlers: list[Handler] = []
        self._reconnect = reconnect_seconds
        self._task: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()

    def subscribe(self, handler: Handler) -> None:
        self._handlers.append(handler)

    async def publish(self, kind: str, data: Mapping[str, str] | None = None) -> None:
        """Send to every replica, this one included (via Redis). Without Redis, deliver
        locally so this replica still acts on its own notice."""
        notice = Notice(kind, self.replica_id, dict(data or {}))
        payload = json.dumps({"kind": kind, "origin": self.replica_id, "data": notice.data})
        sent = await self._link.call("notify", lambda r: r.publish(self._channel, payload))
        if isinstance(sent, Unavailable):
            await _deliver(self._handlers, notice)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="veriproxy-notices")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _listen(self) -> None:
        first = True
        while True:
            pubsub = self._link.client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                self.subscribed.set()
                if not first:
                    await _deliver(self._handlers, Notice(RESYNC, self.replica_id))
                first = False
                async for message in pubsub.listen():
                    notice = _parse(message["data"])
                    if notice is not None:
                        await _deliver(self._handlers, notice)
            except UNREACHABLE_ERRORS as exc:
                self.subscribed.clear()
                self._link.mark_down(exc)
                self._link.observer.on_redis_degraded("notify")
                first = False
            finally:
                with contextlib.suppress(*UNREACHABLE_ERRORS):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]
            await asyncio.sleep(self._reconnect)


def _parse(raw: bytes | str) -> Notice | None:
    try:
        body = json.loads(raw)
        data = {str(k): str(v) for k, v in dict(body.get("data") or {}).items()}
        return Notice(str(body["kind"]), str(body["origin"]), data)
    except (ValueError, KeyError, TypeError, AttributeError):
        log.warning("ignoring a malformed notice on the notices channel")
        return None
