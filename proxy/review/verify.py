"""Labels in the store against the ``review_label`` events of the hash-chained audit log.

The chain makes the log tamper-evident; this check carries that to the store: a label changed
in the store (another verdict or note), removed from it, or added to it without going through
the proxy no longer matches the log's events. ``veriproxy review verify`` runs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from proxy.review.event import EVENT, logged_note
from proxy.review.items import Labelled

Key = tuple[int, str]  # (item id, reviewer key id)
Body = tuple[str, str]  # (verdict, note as logged)


@dataclass(frozen=True, slots=True)
class LabelCheck:
    matched: int
    changed: tuple[Key, ...]  # in both, but not the same
    missing: tuple[Key, ...]  # in the log, not in the store (removed)
    unlogged: tuple[Key, ...]  # in the store, not in the log (added behind the proxy's back)

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.unlogged)

    def describe(self) -> str:
        if self.ok:
            return f"OK: {self.matched} labels match the audit log"
        parts = [
            f"{name}: " + ", ".join(f"item {i} by {r}" for i, r in keys)
            for name, keys in (
                ("changed in the store", self.changed),
                ("missing from the store", self.missing),
                ("not in the audit log", self.unlogged),
            )
            if keys
        ]
        return f"MISMATCH ({self.matched} match); " + "; ".join(parts)


def check_labels(found: Iterable[Labelled], records: Iterable[Mapping[str, Any]]) -> LabelCheck:
    stored: dict[Key, Body] = {
        (label.item_id, label.reviewer): (label.verdict, logged_note(label.note))
        for x in found
        for label in x.labels
    }
    logged: dict[Key, Body] = {
        (int(r["item_id"]), str(r["reviewer"])): (str(r["verdict"]), str(r["note"]))
        for r in records
        if r.get("event") == EVENT
    }
    both = stored.keys() & logged.keys()
    return LabelCheck(
        matched=sum(stored[k] == logged[k] for k in both),
        changed=tuple(sorted(k for k in both if stored[k] != logged[k])),
        missing=tuple(sorted(logged.keys() - stored.keys())),
        unlogged=tuple(sorted(stored.keys() - logged.keys())),
    )
