"""Where a verifying proxy's memory goes: RSS after each start-up stage and after verified
requests, the largest mappings (``/proc/self/smaps``) and the heavy libraries loaded.

    python bench/memory.py [--requests 10]

Runs the real app in-process (``create_app`` with the embedded defaults: bundled index, NLI
model and checks) behind Starlette's test client; only the upstream is replaced, by an
``httpx.MockTransport`` that answers every chat with the same cited three-sentence answer. The
figures are resident set sizes, not timings, so they hold on a busy machine too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

STATUS = Path("/proc/self/status")
SMAPS = Path("/proc/self/smaps")
HEAVY = ("torch", "transformers", "litellm", "spacy", "scispacy", "onnxruntime", "sklearn")
ANSWER = (
    "Metformin lowers HbA1c in adults with type 2 diabetes [PMID:1]. "
    "The usual starting dose is 500 mg twice daily with meals [PMID:2]. "
    "Gastrointestinal side effects are common early in treatment."
)
QUESTION = "Does metformin lower HbA1c in type 2 diabetes?"


def rss_mib() -> float:
    for line in STATUS.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def largest_mappings(count: int) -> list[tuple[str, float]]:
    """Resident MiB per mapped file (anonymous memory as ``[anon]``), largest first."""
    by_path: dict[str, int] = {}
    path = "[anon]"
    for line in SMAPS.read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].endswith(":"):  # a mapping's header line
            path = fields[5] if len(fields) > 5 else "[anon]"
        elif fields and fields[0] == "Rss:":
            by_path[path] = by_path.get(path, 0) + int(fields[1])
    ranked = sorted(by_path.items(), key=lambda item: -item[1])[:count]
    return [(p, round(kib / 1024, 1)) for p, kib in ranked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10, help="verified requests after one")
    args = parser.parse_args()
    stages: dict[str, float] = {"interpreter": round(rss_mib(), 1)}

    def stage(name: str) -> None:
        stages[name] = round(rss_mib(), 1)
        print(f"[memory] {name}: {stages[name]} MiB", file=sys.stderr, flush=True)

    import httpx
    from starlette.testclient import TestClient

    stage("httpx + starlette")
    from proxy.app import create_app
    from proxy.config import load_settings

    stage("import proxy.app")

    def upstream(request: httpx.Request) -> httpx.Response:
        message = {"role": "assistant", "content": ANSWER}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        completion = {"id": "bench", "object": "chat.completion", "created": 0, "model": "bench"}
        return httpx.Response(200, json=completion | {"choices": [choice]})

    app = create_app(load_settings(environ={}), transport=httpx.MockTransport(upstream))
    stage("create_app (pipeline built)")
    body = {"model": "bench", "messages": [{"role": "user", "content": QUESTION}]}
    headers = {"Authorization": "Bearer sk-bench"}
    with TestClient(app) as client:
        stage("lifespan started")
        first = client.post("/v1/chat/completions", json=body, headers=headers)
        report = first.json()["verification"]
        if report["error"] or not report["sentences"]:
            raise SystemExit(f"the request was not verified: {report['error']}")
        stage("first verified request")
        for _ in range(args.requests):
            client.post("/v1/chat/completions", json=body, headers=headers)
        stage(f"{args.requests} more verified requests")
        mappings = largest_mappings(8)
    print(
        json.dumps(
            {
                "rss_mib_by_stage": stages,
                "largest_mappings_mib": dict(mappings),
                "heavy_libraries_loaded": [m for m in HEAVY if m in sys.modules],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
