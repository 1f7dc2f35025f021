"""openai-node 6 and the Vercel AI SDK 6 (``@ai-sdk/openai`` 3) under Node 20, from the npm
registry (tests/node, installed by ``npm ci``), against the real proxy, verifier and emulator,
in annotate and gate mode, streamed and not, the Responses helpers included.

Each operation is what an app writes; the report is reached only through what the client
really hands the app (a field of the object it returns, an event it yields, or the answer's id
and ``GET /v1/chat/completions/{id}/verification``). The results also feed the table in
docs/api.md (``scripts/client_matrix.py``), which this test keeps in step with them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from scripts.client_matrix import DOC, RESULTS, render, replace_table
from tests.conftest import ProxyFactory

NODE_DIR = Path(__file__).parents[1] / "node"
OPERATIONS = 10  # in tests/node/clients.mjs: a client that stops early fails the count
ANSWER = "Aspirin reduces fever in adults [PMID:1]. The moon is made of green cheese."
BLOCKED = "green cheese"
DOCUMENTS = [{"pmid": "1", "title": "Aspirin", "abstract": "Aspirin reduces fever in adults."}]
GATE = """
name: gate-block
stream_mode: gate
sentence_rules:
  - name: block-uncited
    when:
      verdict: [uncited, unsupported]
    action: block
"""


def run_clients(proxy: RunningProxy, headers: dict[str, str]) -> list[dict[str, Any]]:
    assert shutil.which("node") and (NODE_DIR / "node_modules").is_dir(), (
        "needs Node 20 and `npm ci --prefix tests/node` (scripts/test.sh runs it)"
    )
    spec = {"baseURL": proxy.base_url, "headers": headers, "input": "Does aspirin reduce fever?"}
    done = subprocess.run(
        ["node", "clients.mjs", json.dumps(spec)],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


# Known failures, each with the symptom it shows today: gate mode drops the opening events of a
# streamed /v1/responses (issue 29 item 1, another change). A listed case that starts to work
# passes the checks below like the others; the table then shows it (and must be regenerated).
KNOWN_BROKEN = {
    ("gate", "openai-node", "responses.stream()"): "expected 'response.created' event",
    ("gate", "ai-sdk", "streamText responses"): "text part",
}


@pytest.fixture
def verifying(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> RunningProxy:
    (tmp_path / "gate-block.yaml").write_text(GATE)
    emulator.emulator.reply = ANSWER
    return proxy_factory(
        {"verification": {"enabled": True, "timeout_seconds": 300, "policies_dir": str(tmp_path)}}
    )


def check(mode: str, result: dict[str, Any]) -> None:
    name = f"{mode}: {result['client']} {result['operation']}"
    if not result["ok"]:
        symptom = KNOWN_BROKEN.get((mode, result["client"], result["operation"]))
        assert symptom is not None, f"{name}: {result.get('error')}"
        assert symptom in result["error"], f"{name}: {result.get('error')}"
        return
    report = result["report"]
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "uncited"], name
    if mode == "annotate":
        assert result["text"] == ANSWER, name
        assert report["status"] in ("verified", "flagged"), name
    else:
        assert result["text"], name  # the verified part, or the policy's message
        assert BLOCKED not in result["text"], name
        assert report["status"] == "blocked", name


def test_node_clients_in_annotate_and_gate_mode(verifying: RunningProxy) -> None:
    documents = {"X-Veriproxy-Documents": json.dumps(DOCUMENTS)}
    results = {
        "annotate": run_clients(verifying, documents),
        "gate": run_clients(verifying, {**documents, "X-Veriproxy-Policy": "gate-block"}),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1), encoding="utf-8")
    for mode, mode_results in results.items():
        assert len(mode_results) == OPERATIONS, mode
        for result in mode_results:
            check(mode, result)
    documented = DOC.read_text(encoding="utf-8")
    assert replace_table(documented, render(results)) == documented, (
        "docs/api.md's client table differs from what the tests measured: "
        "run `python scripts/client_matrix.py` (it reads " + str(RESULTS) + ")"
    )
