"""litellm against a running proxy, as an app uses it, the report reached through
veriproxy.client's callback: run in a child process by tests/proxy/test_client_matrix_e2e.py
(litellm keeps module-level clients and an event loop that only interpreter exit collects)::

    python tests/proxy/litellm_clients.py '{"baseURL": ..., "headers": {...}, "input": ...}'

prints one JSON line: a list of results in the shape tests/node/clients.mjs prints.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from typing import Any

warnings.simplefilter("ignore")  # litellm's own deprecation and pydantic warnings

import litellm  # noqa: E402

from veriproxy.client.litellm import VerificationLogger  # noqa: E402

VIA = "VerificationLogger.report(response.id) (veriproxy.client)"


def operations(base: str, headers: dict[str, str], question: str) -> dict[str, Callable[[], Any]]:
    logger = VerificationLogger(base, api_key="sk-litellm")
    litellm.callbacks = [logger]
    common: dict[str, Any] = {
        "model": "openai/m",
        "api_base": base,
        "api_key": "sk-litellm",
        "messages": [{"role": "user", "content": question}],
        "extra_headers": headers,
    }

    def completion() -> dict[str, Any]:
        response = litellm.completion(**common)
        message = response.choices[0].message
        # litellm sets the attribute only when the answer has annotations.
        cited = [a["url_citation"]["url"] for a in getattr(message, "annotations", None) or ()]
        return {
            "text": message.content,
            "report": logger.report(response.id),
            "reportVia": VIA,
            "citations": cited,
            "citationsVia": "message.annotations",
        }

    def stream() -> dict[str, Any]:
        options = {"include_usage": True}
        chunks = list(litellm.completion(**common, stream=True, stream_options=options))
        usages = [c.usage for c in chunks if getattr(c, "usage", None) is not None]
        usage = usages[-1] if usages else None
        deltas = [c.choices[0].delta for c in chunks if c.choices]
        annotations = [a for d in deltas for a in getattr(d, "annotations", None) or ()]
        return {
            "text": "".join(d.content or "" for d in deltas),
            "report": logger.report(chunks[0].id),
            "reportVia": VIA,
            "citations": [a["url_citation"]["url"] for a in annotations],
            "citationsVia": "delta.annotations",
            "usage": usage
            and {
                "prompt": usage.prompt_tokens,
                "completion": usage.completion_tokens,
                "total": usage.total_tokens,
            },
        }

    return {"litellm|completion": completion, "litellm|completion stream": stream}


def main() -> None:
    spec = json.loads(sys.argv[1])
    results = []
    for name, run in operations(spec["baseURL"], spec["headers"], spec["input"]).items():
        client, operation = name.split("|")
        try:
            results.append({"client": client, "operation": operation, "ok": True, **run()})
        except Exception as exc:  # recorded: the table says how it fails
            error = str(exc)[:300]
            results.append({"client": client, "operation": operation, "ok": False, "error": error})
    print(json.dumps(results))


if __name__ == "__main__":
    main()
