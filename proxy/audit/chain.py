"""The hash chain that makes the audit log tamper-evident.

Each entry is ``{"prev": H(n-1), "hash": H(n), "record": {...}}`` with
``H(n) = sha256(H(n-1) || canonical_json(record))`` and ``H(-1) = GENESIS``. Editing, removing,
reordering or inserting a record changes a hash that a later entry depends on, which
:func:`verify_entries` reports with the index of the first entry that does not fit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

GENESIS: Final = "0" * 64


def canonical(record: Mapping[str, Any]) -> bytes:
    """The one byte form a record hashes to, whatever key order it was stored in."""
    return json.dumps(
        record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def chain_hash(prev: str, record: Mapping[str, Any]) -> str:
    return hash_canonical(prev, canonical(record))


def hash_canonical(prev: str, body: bytes) -> str:
    """``chain_hash`` for a record already in canonical form (sinks encode it once)."""
    return hashlib.sha256(prev.encode() + body).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The outcome of a verification; ``bad_index`` is the first entry that breaks the chain."""

    ok: bool
    count: int
    head: str
    bad_index: int | None = None
    reason: str = ""

    def describe(self) -> str:
        if self.ok:
            return f"OK: {self.count} records, chain head {self.head}"
        return f"BROKEN at record {self.bad_index}: {self.reason} ({self.count} verified before)"


def verify_entries(entries: Iterable[Mapping[str, Any]], start: str = GENESIS) -> ChainReport:
    """Check that every entry links to the one before and that its hash matches its record."""
    head = start
    count = 0
    for index, entry in enumerate(entries):
        record = entry.get("record")
        if not isinstance(record, Mapping):
            return ChainReport(False, count, head, index, "entry has no record")
        if entry.get("prev") != head:
            return ChainReport(False, count, head, index, "prev does not match the previous hash")
        if entry.get("hash") != chain_hash(head, record):
            return ChainReport(False, count, head, index, "hash does not match the record")
        head = str(entry["hash"])
        count += 1
    return ChainReport(True, count, head)
