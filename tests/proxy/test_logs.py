"""JSON log lines: one object per line, the request id on each, no keys ever."""

from __future__ import annotations

import json
import logging
import sys

from proxy.logs import JSONFormatter, request_id_var


def record(message: str, *args: object, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise RuntimeError("upstream said: Incorrect API key provided: sk-configured-12345678")
        except RuntimeError:
            exc_info = sys.exc_info()
    return logging.LogRecord(
        "veriproxy.test", logging.WARNING, __file__, 1, message, args, exc_info
    )


def test_line_is_json_with_request_id_and_fields() -> None:
    token = request_id_var.set("req-7")
    try:
        rec = record("request %s", "done")
        rec.fields = {"status": 200, "path": "/v1/chat/completions"}
        line = JSONFormatter().format(rec)
    finally:
        request_id_var.reset(token)
    entry = json.loads(line)
    assert "\n" not in line
    assert entry["msg"] == "request done"
    assert entry["request_id"] == "req-7"
    assert entry["level"] == "warning"
    assert entry["status"] == 200


def test_keys_are_scrubbed_from_message_and_traceback() -> None:
    formatter = JSONFormatter(secrets=("sk-configured-12345678",))
    line = formatter.format(
        record("auth header was Bearer abc.def-123 and key %s", "sk-other-key-987654321", exc=True)
    )
    assert "sk-configured-12345678" not in line
    assert "abc.def-123" not in line
    assert "sk-other-key-987654321" not in line
    assert "[redacted]" in json.loads(line)["exc"]
