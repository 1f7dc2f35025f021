"""Choosing a component by the name config gives it (decomposer, harm scorer, …)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

_T = TypeVar("_T")


def lookup(registry: Mapping[str, _T], name: str, kind: str) -> _T:
    """The entry registered as ``name``; a ``ValueError`` naming the known ones otherwise."""
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(sorted(registry))
        raise ValueError(f"unknown {kind} {name!r}; choose from {known}") from None
