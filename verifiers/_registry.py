"""Components chosen by the name config gives them. NLI backends, claim decomposers, harm
scorers and the deterministic checks all register in a ``Registry`` of their kind, so a user
swaps one from config the same way for each (and registers their own under a new name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from verifiers.errors import UnknownComponent, VerifierError

_T = TypeVar("_T")


class Registry(Generic[_T]):
    """Entries of one kind by name: ``registry.get("rules")``; an unknown name raises ``error``
    with a message naming the known ones."""

    def __init__(self, kind: str, *, error: type[VerifierError] = UnknownComponent) -> None:
        self.kind = kind
        self._error = error
        self._entries: dict[str, _T] = {}

    def add(self, name: str, entry: _T) -> _T:
        """Register ``entry`` as ``name`` (replacing what was there: that is how one swaps)."""
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[_T], _T]:
        """Decorator form of ``add``."""

        def decorate(entry: _T) -> _T:
            return self.add(name, entry)

        return decorate

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._entries))

    def get(self, name: str) -> _T:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self.names())
            raise self._error(f"unknown {self.kind} {name!r}; choose from {known}") from None
