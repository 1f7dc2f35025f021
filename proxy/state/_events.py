"""What shared-state components report, so metrics can count it without state importing metrics."""

from __future__ import annotations

from typing import Protocol


class StateObserver(Protocol):
    """Receives state events; :class:`proxy.metrics.Metrics` implements it."""

    def cache_lookup(self, cache: str, hit: bool) -> None: ...

    def redis_degraded(self, operation: str) -> None: ...

    def audit_pending(self, count: int) -> None: ...

    def audit_dropped(self) -> None: ...


class NullObserver:
    """The observer used when nothing is listening (library use, some tests)."""

    def cache_lookup(self, cache: str, hit: bool) -> None:
        return None

    def redis_degraded(self, operation: str) -> None:
        return None

    def audit_pending(self, count: int) -> None:
        return None

    def audit_dropped(self) -> None:
        return None
