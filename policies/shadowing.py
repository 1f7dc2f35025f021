"""Policies that automatic selection can never reach, found before they surprise an operator.

Two cases are certain without enumerating tenants and models:

- a catch-all (``match`` holds only ``*``) while another policy is the configured default: the
  default comes before catch-alls (``PolicyStore.select``), so the catch-all never applies;
- two policies with the same ``match``: ties go to the alphabetically first name, so the other
  one never applies.

A policy shadowed this way is still used when named by a request or bound to a key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from policies._model import Match, Policy


@dataclass(frozen=True, slots=True)
class Shadow:
    policy: str  # never selected by its match...
    by: str  # ...because this one always wins
    reason: str

    def __str__(self) -> str:
        return f"policy {self.policy!r} is never selected by its match: {self.reason}"


def is_catch_all(match: Match) -> bool:
    """A match that fits every request (``*`` only), i.e. a second default."""
    patterns = (*match.tenants, *match.models)
    return bool(patterns) and set(patterns) == {"*"}


def find_shadows(policies: Iterable[Policy], default: str) -> tuple[Shadow, ...]:
    """Every policy whose ``match`` cannot win, given the configured default policy's name."""
    every = tuple(policies)
    has_default = any(p.name == default for p in every)
    matching = sorted((p for p in every if p.match.tenants or p.match.models), key=_name)
    found: list[Shadow] = []
    first_with: dict[tuple[frozenset[str], frozenset[str]], str] = {}
    for policy in matching:
        if policy.name == default:
            continue
        if is_catch_all(policy.match) and has_default:
            reason = (
                f"it matches every request, and the default policy {default!r} comes before "
                f"catch-all matches (set verification.default_policy: {policy.name} to make "
                "it the default, or narrow its match)"
            )
            found.append(Shadow(policy.name, default, reason))
            continue
        key = (frozenset(policy.match.tenants), frozenset(policy.match.models))
        winner = first_with.setdefault(key, policy.name)
        if winner != policy.name:
            reason = f"policy {winner!r} has the same match and wins the tie by name"
            found.append(Shadow(policy.name, winner, reason))
    return tuple(found)


def _name(policy: Policy) -> str:
    return policy.name
