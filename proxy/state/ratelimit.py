"""Per-key rate limits: requests and tokens per window (a minute unless configured).

Fixed windows that start at a key's first request, so replicas need no shared clock: Redis
keeps the counters and their expiry (one atomic script per request); the in-memory limiter
does the same in-process. A request is refused when the key already used its token budget
or this request exceeds the request budget; ``retry_after`` is when the window ends. Token use
is added after the response (:meth:`RateLimiter.add_tokens`), so a long answer can overshoot
the budget once and the next request waits for the window.

Limited keys are hashed before they reach Redis: the caller passes the API key's identity,
which must never be stored in clear.

While Redis is unreachable (down or frozen past its socket timeout) the limits fail *open with
the shared counts carried over*: every answer from Redis also gives the key's shared counts and
their expiry, which this replica keeps in its in-process limiter; when Redis stops answering,
that limiter goes on from those counts, so a key over its limit stays refused until its window
ends. Only what other replicas admit during the outage goes uncounted here.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Final, Protocol

from proxy.settings.state import RateBudget as RateBudget
from proxy.state._redis import RedisLink, Unavailable


@dataclass(frozen=True, slots=True)
class Admission:
    allowed: bool
    limit: str | None = None  # "requests" | "tokens" when refused
    retry_after: float = 0.0  # seconds until the window resets

    @property
    def retry_after_header(self) -> str:
        """``Retry-After`` takes whole seconds; round up so a retry on time succeeds."""
        return str(max(1, math.ceil(self.retry_after)))


ALLOWED: Final = Admission(allowed=True)


class RateLimiter(Protocol):
    async def acquire(self, key: str, limits: RateBudget) -> Admission: ...

    async def add_tokens(self, key: str, tokens: int, limits: RateBudget) -> None: ...


def _hashed(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(slots=True)
class _Window:
    expires: float
    count: int = 0

    def spent(self, budget: int, now: float) -> bool:
        return self.expires > now and self.count >= budget


class MemoryRateLimiter:
    """The in-process limiter (embedded default, and the fallback while Redis is down)."""

    def __init__(self) -> None:
        self._windows: dict[tuple[str, str], _Window] = {}

    def _window(self, key: str, kind: str, seconds: float, now: float) -> _Window:
        window = self._windows.get((key, kind))
        if window is None or window.expires <= now:
            if len(self._windows) > 10_000:
                self._sweep(now)
            window = self._windows[(key, kind)] = _Window(expires=now + seconds)
        return window

    def carry(self, key: str, kind: str, count: int, seconds: float) -> None:
        """Take over a shared count (Redis's), valid for ``seconds`` more."""
        if count >= 0 and seconds > 0:
            self._windows[(key, kind)] = _Window(time.monotonic() + seconds, count)

    def _sweep(self, now: float) -> None:
        for k in [k for k, w in self._windows.items() if w.expires <= now]:
            del self._windows[k]

    async def acquire(self, key: str, limits: RateBudget) -> Admission:
        if limits.unlimited:
            return ALLOWED
        now = time.monotonic()
        tokens = self._windows.get((key, "tokens"))
        if limits.tokens is not None and tokens is not None and tokens.spent(limits.tokens, now):
            return Admission(False, "tokens", tokens.expires - now)
        requests = self._window(key, "requests", limits.window_seconds, now)
        requests.count += 1
        if limits.requests is not None and requests.count > limits.requests:
            return Admission(False, "requests", requests.expires - now)
        return ALLOWED

    async def add_tokens(self, key: str, tokens: int, limits: RateBudget) -> None:
        if limits.tokens is None or tokens <= 0:
            return
        self._window(key, "tokens", limits.window_seconds, time.monotonic()).count += tokens


# KEYS: requests counter, tokens counter. ARGV: request limit, token limit (0 = none), window ms.
# Returns {refused_kind, retry_ms, requests, requests_ttl_ms, tokens, tokens_ttl_ms}: kind 0
# allowed, 1 requests, 2 tokens; the counts (-1: not counted) are carried over by the fallback.
_ACQUIRE: Final = """
local req_limit = tonumber(ARGV[1])
local tok_limit = tonumber(ARGV[2])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local tok_ttl = redis.call('PTTL', KEYS[2])
if tok_limit > 0 and used >= tok_limit then
  return {2, tok_ttl, -1, -1, used, tok_ttl}
end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
local req_ttl = redis.call('PTTL', KEYS[1])
if req_limit > 0 and n > req_limit then
  return {1, req_ttl, n, req_ttl, used, tok_ttl}
end
return {0, 0, n, req_ttl, used, tok_ttl}
"""

# KEYS: tokens counter. ARGV: tokens, window ms. Returns {tokens, ttl_ms}.
_ADD_TOKENS: Final = """
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, redis.call('PTTL', KEYS[1])}
"""

_KINDS: Final = {1: "requests", 2: "tokens"}


class RedisRateLimiter:
    """Limits shared by all replicas; falls back to per-replica limits while Redis is down."""

    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._acquire = link.client.register_script(_ACQUIRE)
        self._add = link.client.register_script(_ADD_TOKENS)
        self._fallback = MemoryRateLimiter()

    def _keys(self, key: str) -> list[str]:
        # The hash tag keeps both counters of a key in one Redis Cluster slot.
        tag = "{" + _hashed(key) + "}"
        return [self._link.key("rl", tag, "requests"), self._link.key("rl", tag, "tokens")]

    async def acquire(self, key: str, limits: RateBudget) -> Admission:
        if limits.unlimited:
            return ALLOWED
        args = [limits.requests or 0, limits.tokens or 0, int(limits.window_seconds * 1000)]
        result = await self._link.call(
            "ratelimit", lambda _: self._acquire(keys=self._keys(key), args=args)
        )
        if isinstance(result, Unavailable):
            return await self._fallback.acquire(key, limits)
        kind, retry_ms, requests, requests_ms, tokens, tokens_ms = (int(v) for v in result)
        self._fallback.carry(key, "requests", requests, requests_ms / 1000)
        self._fallback.carry(key, "tokens", tokens, tokens_ms / 1000)
        if kind == 0:
            return ALLOWED
        return Admission(False, _KINDS[kind], max(retry_ms, 0) / 1000)

    async def add_tokens(self, key: str, tokens: int, limits: RateBudget) -> None:
        if limits.tokens is None or tokens <= 0:
            return
        args = [tokens, int(limits.window_seconds * 1000)]
        added = await self._link.call(
            "ratelimit", lambda _: self._add(keys=self._keys(key)[1:], args=args)
        )
        if isinstance(added, Unavailable):
            await self._fallback.add_tokens(key, tokens, limits)
        else:
            self._fallback.carry(key, "tokens", int(added[0]), int(added[1]) / 1000)
