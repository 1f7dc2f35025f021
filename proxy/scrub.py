"""Scrubbing keys from everything that leaves the proxy: the one place it is done.

Anything an upstream sends may quote a key: its error messages, its relayed headers
(``x-ratelimit-*``, ``retry-after``), its stream events, its bodies. Every byte from an upstream
passes a :class:`Scrubber` before it reaches a client, a log line, a metric or the audit log.

Two strengths, by what the text is:

* :meth:`Scrubber.text` (messages, headers, logs): the configured keys, plus anything shaped like
  a key (``Bearer <token>``, ``sk-…``, ``pk-…``, ``rk-…``). Cut to a limit *after* scrubbing, so
  a cut never leaves a key's prefix behind.
* :meth:`Scrubber.raw` (completion bodies and stream events, the model's own text): the
  configured keys only, matched exactly in the bytes. The shape patterns would rewrite ordinary
  prose ("bearer tokens"), and the configured keys are what an upstream can echo by accident.

Known limit: a hostile upstream that splits a key across two stream events, or encodes it, gets
it through. No scrubber can stop an upstream that wants to exfiltrate; this one stops echoes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_MESSAGE_CHARS", "REDACTED", "Scrubber", "sanitise", "without_surrogates"]

_KEY_PATTERNS = re.compile(
    r"(?i)(bearer\s+)[^\s\"',]+|\b(sk|pk|rk)-[A-Za-z0-9_\-]{8,}|\b(sk-ant-)[A-Za-z0-9_\-]+"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
REDACTED = "[redacted]"
MAX_MESSAGE_CHARS = 2000


def sanitise(text: str, secrets: Iterable[str] = (), limit: int | None = MAX_MESSAGE_CHARS) -> str:
    """Scrub keys from text bound for a client, a log line or a metric; then cut to ``limit``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _KEY_PATTERNS.sub(lambda m: (m.group(1) or "") + REDACTED, text)
    return text if limit is None else text[:limit]


def without_surrogates(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (JSON lets ``"\\ud800"`` through; UTF-8 cannot
    encode it) replaced by U+FFFD, one code point for one, so offsets into the text still hold."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


class Scrubber:
    """Scrubs the configured ``secrets`` (and key-shaped text, see the module doc)."""

    __slots__ = ("_raw", "secrets")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(s for s in secrets if s)
        self._raw = tuple(s.encode() for s in self.secrets)

    def text(self, text: str, limit: int | None = MAX_MESSAGE_CHARS) -> str:
        return sanitise(text, self.secrets, limit)

    def raw(self, data: bytes) -> bytes:
        """Bytes of a body or an event with every configured key replaced (no copy if none)."""
        for secret in self._raw:
            if secret in data:
                data = data.replace(secret, REDACTED.encode())
        return data

    def headers(self, headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        """Relayed response headers with their values scrubbed (names are ours to pick)."""
        return tuple((name, self.text(value, limit=None)) for name, value in headers)
