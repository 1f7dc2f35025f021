"""Append-only JSONL audit file, safe for several worker processes writing one file.

Each append takes an exclusive ``flock``, checks whether another process appended since this one
last wrote (the file size moved), re-reads the chain head if so, and appends one chained entry.
The head survives restarts: it is kept beside the file (``<file>.head``: the file's size and
the hash of its last line, rewritten after each append) and, when that does not match the
file's size (another writer, a crash between the two writes), read back from the last line,
however long: each line begins with its ``prev`` and ``hash``, so only the start of the last
line is read, found by scanning back for its newline.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from proxy.audit.chain import GENESIS, ChainReport, canonical, hash_canonical, verify_entries

_TAIL_CHUNK = 64 * 1024
_SCAN_CHUNK = 1024 * 1024
LOOKBACK_BYTES = 64 * 1024 * 1024  # how far back from the end a lookup reads
SETTLED_AFTER = 1_000  # lines past the newest match: a request's records are written together


class AuditFileError(Exception):
    """The audit file cannot be read as a chain (not JSON, truncated line)."""


class JsonlSink:
    def __init__(self, path: str | Path, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fsync = fsync
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        self.head_path = self.path.with_name(self.path.name + ".head")
        self._head_fd = os.open(self.head_path, os.O_RDWR | os.O_CREAT, 0o600)
        self._head = GENESIS
        self._size = -1  # file size after our last append; -1 forces a re-read

    def write(self, record: Mapping[str, Any]) -> str:
        """Append one record; returns its chain hash."""
        return self.write_canonical(canonical(record))

    def write_canonical(self, body: bytes) -> str:
        """Append a record given in canonical form (see :func:`~proxy.audit.chain.canonical`);
        the line is built around those bytes, so the record is encoded once."""
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            size = os.fstat(self._fd).st_size
            if size != self._size:
                self._head = _kept_head(self._head_fd, size) or _last_hash(self._fd, size)
            digest = hash_canonical(self._head, body)
            line = b'{"prev":"%s","hash":"%s","record":%s}\n' % (
                self._head.encode(),
                digest.encode(),
                body,
            )
            os.write(self._fd, line)
            if self._fsync:
                os.fsync(self._fd)
            self._head = digest
            self._size = size + len(line)
            os.pwrite(self._head_fd, _HEAD_FORMAT % (self._size, digest.encode()), 0)
            return digest
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)
        os.close(self._head_fd)


_HEAD_FORMAT = b"%020d %s\n"  # fixed width: each rewrite covers the one before
_LINE_HEAD = re.compile(rb'\{"prev":"[^"]*","hash":"([^"]+)"')


def _kept_head(fd: int, size: int) -> str | None:
    """The hash kept beside the file, if it was written for a file of this ``size``."""
    kept = os.pread(fd, 128, 0).split()
    if len(kept) == 2 and kept[0].isdigit() and int(kept[0]) == size:
        return kept[1].decode("ascii", "replace")
    return None


def _last_hash(fd: int, size: int) -> str:
    """The hash at the start of the file's last line, whatever that line's length."""
    if size == 0:
        return GENESIS
    end = size - 1 if os.pread(fd, 1, size - 1) == b"\n" else size
    start = end
    while start > 0:  # back to the newline before the last line
        chunk_start = max(0, start - _TAIL_CHUNK)
        at = os.pread(fd, start - chunk_start, chunk_start).rfind(b"\n")
        if at >= 0:
            start = chunk_start + at + 1
            break
        start = chunk_start
    match = _LINE_HEAD.match(os.pread(fd, 256, start))
    if match is None:
        raise AuditFileError("cannot read the chain head from the last line")
    return match.group(1).decode("ascii", "replace")


def find_records(
    path: str | Path, needle: bytes, *, lookback_bytes: int = LOOKBACK_BYTES
) -> list[dict[str, Any]]:
    """The records, newest first, of the lines holding ``needle`` among the file's last
    ``lookback_bytes``; the caller checks each record (``needle`` only preselects lines)."""
    found: list[dict[str, Any]] = []
    since = 0
    try:
        with open(path, "rb") as fh:
            for line in _lines_backwards(fh, lookback_bytes):
                since += 1
                if needle in line:
                    try:
                        found.append(json.loads(line)["record"])
                    except (ValueError, KeyError, TypeError):
                        continue  # a line cut by the lookback window, or not an entry
                    since = 0
                elif found and since > SETTLED_AFTER:
                    break
    except FileNotFoundError:
        return []
    return found


def _lines_backwards(fh: Any, limit: int) -> Iterator[bytes]:
    end = fh.seek(0, os.SEEK_END)
    floor = max(0, end - limit)
    carry = b""
    while end > floor:
        start = max(floor, end - _SCAN_CHUNK)
        fh.seek(start)
        lines = (fh.read(end - start) + carry).split(b"\n")
        carry = lines.pop(0) if start > floor else b""
        yield from reversed(lines)
        end = start


def read_entries(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise AuditFileError(f"line {number}: not JSON ({exc.msg})") from None


def verify_file(path: str | Path) -> ChainReport:
    try:
        return verify_entries(read_entries(path))
    except AuditFileError as exc:
        return ChainReport(False, 0, GENESIS, None, str(exc))
