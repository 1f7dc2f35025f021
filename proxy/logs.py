"""Structured JSON log lines carrying the request id; keys are scrubbed from every line.

``configure_logging(level, secrets)`` installs one handler on the ``veriproxy`` logger (and
uvicorn's), writing one JSON object per line::

    {"ts": "...", "level": "info", "logger": "veriproxy.access", "msg": "request",
     "request_id": "...", "method": "POST", "path": "/v1/chat/completions", "status": 200, ...}

The request id comes from :data:`request_id_var`, set by the request-context middleware.
Fields passed with ``extra={"fields": {...}}`` are merged into the object.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from contextvars import ContextVar
from datetime import UTC, datetime

from proxy.errors import sanitise

request_id_var: ContextVar[str | None] = ContextVar("veriproxy_request_id", default=None)


class JSONFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(secrets)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        request_id = request_id_var.get()
        if request_id is not None:
            entry["request_id"] = request_id
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return sanitise(json.dumps(entry, default=str), self._secrets, limit=None)


def configure_logging(level: str, secrets: Iterable[str] = ()) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter(secrets))
    for name in ("veriproxy", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    # Our access log replaces uvicorn's (it has the request id and no query secrets).
    logging.getLogger("uvicorn.access").disabled = True
