"""The order of a verified stream, as clients expect it: content, sentence annotations, the
report, the upstream's ``finish_reason`` chunk, its usage chunk, ``[DONE]``. Checked with the
openai SDK's stream helper (usage survives into ``get_final_completion()``), with a loop that
stops at ``finish_reason``, on the wire, and (usage after a block) with litellm. openai-node
and the Vercel AI SDK: tests/proxy/test_client_matrix_e2e.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.ibuprofen import DOCUMENTS, FABRICATED, QUESTION, SUPPORTED, VERIFICATION

ANSWER = f"{SUPPORTED} {FABRICATED}"
POLICIES = ["default", "clinical-strict"]  # annotate and gate
BLOCK = """
name: block
stream_mode: {mode}
sentence_rules:
  - name: block-invalid-citation
    when:
      verdict: [invalid_citation]
    action: block
"""


@pytest.fixture
def verifying(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> RunningProxy:
    emulator.emulator.reply = ANSWER
    return proxy_factory({"verification": VERIFICATION})


@pytest.fixture
def client(verifying: RunningProxy) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=verifying.base_url, api_key="sk-test", max_retries=0) as c:
        yield c


def _options(policy: str) -> dict[str, Any]:
    return {"veriproxy": {"documents": DOCUMENTS, "policy": policy}}


@pytest.mark.parametrize("policy", POLICIES)
def test_stream_helper_keeps_usage_and_reaches_the_report(
    client: openai.OpenAI, policy: str
) -> None:
    with client.chat.completions.stream(
        model="gpt-x",
        messages=QUESTION,
        stream_options={"include_usage": True},
        extra_body=_options(policy),
    ) as stream:
        chunks = [e.chunk for e in stream if e.type == "chunk"]
        final = stream.get_final_completion()
    assert final.usage is not None and final.usage.total_tokens > 0
    assert final.choices[0].finish_reason == "stop"
    reports = [
        c.model_extra["verification"]
        for c in chunks
        if (c.model_extra or {}).get("verification", {}).get("type") == "report"
    ]
    assert len(reports) == 1 and reports[0]["counts"]["invalid_citation"] == 1


@pytest.mark.parametrize("policy", POLICIES)
def test_a_loop_that_stops_at_finish_reason_has_every_annotation(
    client: openai.OpenAI, policy: str
) -> None:
    seen: list[str] = []
    for chunk in client.chat.completions.create(
        model="gpt-x", messages=QUESTION, stream=True, extra_body=_options(policy)
    ):
        annotation = (chunk.model_extra or {}).get("verification")
        if annotation is not None:
            seen.append(annotation["type"])
        if chunk.choices and chunk.choices[0].finish_reason is not None:
            break
    assert seen == ["sentence", "sentence", "report"]


@pytest.mark.parametrize("policy", POLICIES)
def test_wire_order(verifying: RunningProxy, policy: str) -> None:
    body = {
        "model": "gpt-x",
        "messages": QUESTION,
        "stream": True,
        "stream_options": {"include_usage": True},
        **_options(policy),
    }
    with httpx.stream("POST", f"{verifying.base_url}/chat/completions", json=body) as response:
        events = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    kinds = [_kind(json.loads(e)) for e in events[:-1]]
    # Collapse repeats: content may arrive in many chunks, annotations in between.
    order = [k for i, k in enumerate(kinds) if i == 0 or k != kinds[i - 1]]
    assert order[-3:] == ["report", "finish", "usage"]
    assert order.count("finish") == 1 and order.count("report") == 1
    assert "content" not in order[order.index("report") :]


@pytest.mark.parametrize("mode", ["gate", "annotate"])
def test_a_blocked_stream_still_ends_with_the_upstreams_usage(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path, mode: str
) -> None:
    """Billing reads usage exactly when a policy fires: the block's ``content_filter`` finish,
    then the upstream's own usage chunk, then ``[DONE]`` (the SDK's loop ends there)."""
    (tmp_path / "block.yaml").write_text(BLOCK.format(mode=mode))
    emulator.emulator.reply = ANSWER
    proxy = proxy_factory({"verification": {**VERIFICATION, "policies_dir": str(tmp_path)}})
    with openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0) as client:
        chunks = list(
            client.chat.completions.create(
                model="gpt-x",
                messages=QUESTION,
                stream=True,
                stream_options={"include_usage": True},
                extra_body=_options("block"),
            )
        )
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert [f for f in finishes if f is not None] == ["content_filter"]
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens == len(ANSWER.split())  # the emulator's own count
    assert chunks[-2].choices[0].finish_reason == "content_filter"
    if mode == "gate":
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert "wound infection" not in text


def _kind(chunk: dict[str, Any]) -> str:
    if "verification" in chunk:
        return str(chunk["verification"]["type"])
    if not chunk["choices"]:
        return "usage"
    if chunk["choices"][0].get("finish_reason"):
        return "finish"
    return "content" if chunk["choices"][0]["delta"].get("content") else "other"


# litellm keeps module-level clients that only interpreter exit collects (as in
# tests/client/test_client_e2e.py): its stream is read in a child process.
LITELLM_STREAM = """
import json, sys, warnings
warnings.simplefilter("ignore")
import litellm
base, messages, options = sys.argv[1], *map(json.loads, sys.argv[2:])
chunks = list(litellm.completion(
    model="openai/gpt-x", api_base=base, api_key="sk-test", messages=messages, stream=True,
    stream_options={"include_usage": True}, extra_body=options))
usages = [c.usage.model_dump() for c in chunks if getattr(c, "usage", None) is not None]
finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
print(json.dumps({
    "finishes": [f for f in finishes if f],
    "text": "".join(c.choices[0].delta.content or "" for c in chunks if c.choices),
    "usage": usages[-1] if usages else None,
    "built": litellm.stream_chunk_builder(chunks, messages=messages).usage.model_dump(),
}))
"""


@pytest.mark.parametrize("mode", ["gate", "annotate"])
def test_litellm_gets_the_upstreams_usage_after_a_block(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path, mode: str
) -> None:
    """litellm estimates usage an upstream did not send (its own token count of the text it
    saw): after a block it must read the upstream's counts of the whole answer instead, on the
    last chunk and in the response ``stream_chunk_builder`` assembles."""
    (tmp_path / "block.yaml").write_text(BLOCK.format(mode=mode))
    emulator.emulator.reply = ANSWER
    proxy = proxy_factory({"verification": {**VERIFICATION, "policies_dir": str(tmp_path)}})
    done = subprocess.run(
        [sys.executable, "-c", LITELLM_STREAM, proxy.base_url]
        + [json.dumps(v) for v in (QUESTION, _options("block"))],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["finishes"] == ["content_filter"]
    counted = len(ANSWER.split())  # the emulator's own count of the whole answer
    for usage in (out["usage"], out["built"]):
        assert usage["completion_tokens"] == counted
        assert usage["total_tokens"] == usage["prompt_tokens"] + counted
    # Nothing but the emulator's numbers: the request's words as the emulator counts them.
    upstream = emulator.stats.requests[-1]["messages"]
    prompt = sum(len(str(m["content"]).split()) for m in upstream)
    assert out["usage"]["prompt_tokens"] == prompt == out["built"]["prompt_tokens"]
    if mode == "gate":
        assert "wound infection" not in out["text"]
