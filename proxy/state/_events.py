"""What shared-state components report, so metrics can count it without state importing metrics."""

from __future__ import annotations

from typing import Protocol


class StateObserver(Protocol):
    """Receives state events; :class:`proxy.metrics.Metrics` implements it."""

    def on_cache_lookup(self, cache: str, hit: bool) -> None: ...

    def on_redis_degraded(self, operation: str) -> None: ...

    def on_audit_pending(self, count: int) -> None: ...

    def on_audit_dropped(self) -> None: ...


class NullObserver:
    """The observer used when nothing is listening (library use, some tests)."""

    def on_cache_lookup(self, cache: str, hit: bool) -> None:
        return None

    def on_redis_degraded(self, operation: str) -> None:
        return None

    def on_audit_pending(self, count: int) -> None:
        return None

    def on_audit_dropped(self) -> None:
        return None
