"""A request spacer for remote APIs with a requests-per-second limit (NCBI: 3/s, 10/s with a
key). Callers await their slot; slots are spaced ``1/rate`` seconds apart across tasks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class RequestSpacer:
    def __init__(
        self,
        per_second: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._interval = 1.0 / per_second
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self._interval
        if slot > now:
            await self._sleep(slot - now)
