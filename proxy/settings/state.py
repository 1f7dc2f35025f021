"""Shared state: ``redis``, ``rate_limits`` and ``audit`` (used by :mod:`proxy.state` and
:mod:`proxy.audit`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated

from annotated_types import Ge, Gt, MinLen

from proxy.settings._section import Pattern, Section

DEFAULT_PREFIX = "veriproxy:"
DEFAULT_SOCKET_TIMEOUT = 0.5
DEFAULT_RETRY_AFTER = 1.0
DEFAULT_WINDOW_SECONDS = 60.0
DEFAULT_MAX_PENDING = 10_000  # audit records buffered while Redis is away


@dataclass(frozen=True, slots=True)
class RedisSettings(Section):
    """``redis:`` in the configuration. The URL may hold a password: it is kept out of repr."""

    url: Annotated[str, Pattern("^(redis|rediss|unix)://")] = field(repr=False)
    prefix: Annotated[str, MinLen(1)] = DEFAULT_PREFIX
    socket_timeout: Annotated[float, Gt(0)] = DEFAULT_SOCKET_TIMEOUT
    # After a failure, Redis is left alone this long (a dead Redis costs one timeout).
    retry_after: Annotated[float, Ge(0)] = DEFAULT_RETRY_AFTER


@dataclass(frozen=True, slots=True)
class RateBudget(Section):
    """Rate-limit budgets per window; ``None`` means unlimited."""

    requests: Annotated[int, Ge(1)] | None = None
    tokens: Annotated[int, Ge(1)] | None = None
    window_seconds: Annotated[float, Gt(0)] = DEFAULT_WINDOW_SECONDS

    @property
    def unlimited(self) -> bool:
        return self.requests is None and self.tokens is None


@dataclass(frozen=True, slots=True)
class RateLimitSettings(Section):
    """``rate_limits:`` in the configuration: a default budget and per-tenant overrides."""

    default: RateBudget = RateBudget()
    tenants: Mapping[str, RateBudget] = field(default_factory=dict)

    def for_tenant(self, tenant: str | None) -> RateBudget:
        return self.tenants.get(tenant, self.default) if tenant is not None else self.default


@dataclass(frozen=True, slots=True)
class AuditSettings(Section):
    """``audit:`` in the configuration. Neither sink set: no audit log."""

    jsonl: Annotated[str, MinLen(1)] | None = None  # append-only file path
    redis_stream: Annotated[str, MinLen(1)] | None = None  # stream name; needs ``redis:``
    include_text: bool = False  # prompt and answer text (may hold patient data)
    fsync: bool = False  # fsync the file after every record
    max_pending: Annotated[int, Ge(1)] = DEFAULT_MAX_PENDING  # records buffered while Redis is away
