"""The judge cascade end to end: the openai SDK -> the running proxy (bundled model, real
policies) -> the emulator, which serves both the answer and, as the ``judge-llm`` entry of
``models:`` with its own key, the LLM judge scripted to overturn with a quote."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client
from tests.proxy.ibuprofen import DOCUMENTS, QUESTION, SUPPORTED, VERIFICATION
from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, free_port, fresh_prefix
from tests.verifiers.judge.scripted import judge_reply

ProxyFactory = Callable[..., RunningProxy]
JUDGE_KEY = "sk-judge-secret-4f2a9c"
JUDGE = "judge-llm"
DECIDED_BY = f"judge:{JUDGE}"
OTHER_CLAIM = (
    "The perioperative blood loss increased by 45% in the ibuprofen group compared with placebo "
    "[PMID:12442934]."
)


def _escalate(**extra: Any) -> dict[str, Any]:
    return {
        "judge": JUDGE,
        "when": [{"name": "every_claim", "confidence_below": 1.0}],
        "timeout_seconds": 30,
        **extra,
    }


def _config(emulator: RunningEmulator, escalate: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "models": {JUDGE: {"base_url": emulator.base_url, "api_key": JUDGE_KEY}},
        "verification": {**VERIFICATION, "verifier": {"escalate": dict(escalate)}},
        **extra,
    }


def _answer_or_judge(label: str, answer: str = SUPPORTED) -> Callable[[Mapping[str, Any]], str]:
    """The emulator's replies: the judge's JSON to the judge, the answer to everyone else."""
    judge = judge_reply(label)
    return lambda body: judge(body) if body["model"] == JUDGE else answer


def _report(proxy: RunningProxy, **options: Any) -> dict[str, Any]:
    completion = sdk_client(proxy.base_url).chat.completions.create(
        model="gpt-x",
        messages=QUESTION,
        extra_body={"veriproxy": {"documents": DOCUMENTS, **options}},
    )
    report: dict[str, Any] = (completion.model_extra or {})["verification"]
    return report


def _stream(proxy: RunningProxy, **options: Any) -> list[dict[str, Any]]:
    """The ``verification`` objects of a streamed answer, in order."""
    stream = sdk_client(proxy.base_url).chat.completions.create(
        model="gpt-x",
        messages=QUESTION,
        stream=True,
        extra_body={"veriproxy": {"documents": DOCUMENTS, **options}},
    )
    return [c.model_extra["verification"] for c in stream if "verification" in c.model_extra]


def _judge_requests(emulator: RunningEmulator) -> list[int]:
    return [i for i, body in enumerate(emulator.stats.requests) if body["model"] == JUDGE]


def test_the_judge_from_models_overturns_with_its_own_key_kept_secret(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    emulator.emulator.reply = _answer_or_judge("contradicted")
    proxy = proxy_factory(_config(emulator, _escalate()))
    report = _report(proxy)
    [sentence] = report["sentences"]
    assert sentence["verdict"] == "contradicted"
    assert sentence["decided_by"] == DECIDED_BY
    assert sentence["bundled_verdict"] == "supported"
    escalation = sentence["claims"][0]["escalation"]
    assert escalation["outcome"] == "judged" and escalation["rule"] == "every_claim"
    assert escalation["quote"] and escalation["evidence"] == [DOCUMENTS[0]["pmid"]]
    summary = report["escalation"]
    assert (summary["escalated"], summary["judged"], summary["overturned"]) == (1, 1, 1)
    assert summary["prompt_tokens"] > 0 and summary["judge_error"] is None
    assert report["schema_version"] == "2.5"
    # The judge got the upstream's key; the key is nowhere in logs, report or metrics.
    [judge_call] = _judge_requests(emulator)
    assert emulator.stats.headers[judge_call]["authorization"] == f"Bearer {JUDGE_KEY}"
    metrics = httpx.get(f"{proxy.url}/metrics").text
    assert 'veriproxy_judge_requests_total{outcome="ok"} 1.0' in metrics
    assert 'veriproxy_judge_verdicts_total{outcome="overturn"} 1.0' in metrics
    assert 'veriproxy_judge_escalations_total{reason="every_claim"} 1.0' in metrics
    for text in (caplog.text, str(report), metrics):
        assert JUDGE_KEY not in text


def test_gate_mode_releases_sentences_as_the_judge_decided_them(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = _answer_or_judge("unsupported")
    proxy = proxy_factory(_config(emulator, _escalate()))
    events = _stream(proxy, policy="clinical-strict")
    sentences = [e for e in events if e["type"] == "sentence"]
    [report] = [e for e in events if e["type"] == "report"]
    assert [s["decided_by"] for s in sentences] == [DECIDED_BY]
    assert sentences[0]["verdict"] == "unsupported"
    assert report["sentences"][0]["decided_by"] == DECIDED_BY
    assert report["escalation"]["judged"] == 1


def test_annotate_mode_sends_the_judged_report_last(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = _answer_or_judge("contradicted", f"{SUPPORTED} {SUPPORTED}")
    proxy = proxy_factory(_config(emulator, _escalate()))
    events = _stream(proxy)
    sentences = [e for e in events if e["type"] == "sentence"]
    [report] = [e for e in events if e["type"] == "report"]
    # The first sentence went out as soon as it was complete, with the bundled verdict; the
    # judge is asked once, at the end, and the last sentence and the report carry its verdicts.
    assert [s["decided_by"][:14] for s in sentences] == ["veriproxy-nli-", "judge:judge-ll"]
    assert [s["verdict"] for s in sentences] == ["supported", "contradicted"]
    assert [s["decided_by"] for s in report["sentences"]] == [DECIDED_BY, DECIDED_BY]
    assert [s["verdict"] for s in report["sentences"]] == ["contradicted", "contradicted"]
    assert report["sentences"][0]["bundled_verdict"] == "supported"
    assert report["escalation"]["requests"] == 1
    assert report["faithful"] is False


def test_a_judge_that_is_down_is_an_error_not_a_verdict(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    emulator.emulator.reply = SUPPORTED
    dead = f"http://127.0.0.1:{free_port()}/v1"
    config = _config(emulator, _escalate(), audit={"jsonl": str(tmp_path / "audit.jsonl")})
    config["models"][JUDGE]["base_url"] = dead
    proxy = proxy_factory(config)
    report = _report(proxy)
    assert report["sentences"][0]["verdict"] == "supported"  # the bundled verdict stands
    assert report["sentences"][0]["decided_by"].startswith("veriproxy-nli-")
    assert report["sentences"][0]["claims"][0]["escalation"]["outcome"] == "judge_error"
    assert "failed" in report["escalation"]["judge_error"]
    metrics = httpx.get(f"{proxy.url}/metrics").text
    assert 'veriproxy_judge_requests_total{outcome="unreachable"} 1.0' in metrics
    audited = (tmp_path / "audit.jsonl").read_text()
    assert '"judge_error"' in audited and "failed" in audited


def test_the_budget_and_the_cache_are_shared_through_redis(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = _answer_or_judge("contradicted")
    prefix = fresh_prefix()
    redis = {"url": SHARED_URL, "prefix": prefix}
    try:
        first = proxy_factory(_config(emulator, _escalate(tokens_per_minute=10), redis=redis))
        second = proxy_factory(_config(emulator, _escalate(tokens_per_minute=10), redis=redis))
        assert _report(first)["escalation"]["judged"] == 1  # spends more than 10 tokens
        # The same claim on the other replica: the cached ruling, no tokens, no request.
        cached = _report(second)
        assert cached["escalation"]["cached"] == 1
        assert cached["sentences"][0]["verdict"] == "contradicted"
        # A new claim: the tenant's budget is spent on every replica; the bundled verdict stands.
        emulator.emulator.reply = _answer_or_judge("contradicted", OTHER_CLAIM)
        report = _report(second)
        assert report["escalation"]["escalation_skipped"] == {"budget": 1}
        assert report["sentences"][0]["verdict"] == "supported"
        assert report["sentences"][0]["claims"][0]["escalation"]["outcome"] == "budget"
        assert len(_judge_requests(emulator)) == 1
    finally:
        delete_prefix(prefix)


def test_a_policy_turns_escalation_off_for_its_tenants(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    (tmp_path / "no-judge.yaml").write_text(
        "name: no-judge\nversion: 1\nescalate: {enabled: false}\n"
    )
    emulator.emulator.reply = _answer_or_judge("contradicted")
    config = _config(emulator, _escalate())
    config["verification"]["policies_dir"] = str(tmp_path)
    proxy = proxy_factory(config)
    report = _report(proxy, policy="no-judge")
    assert report["escalation"] is None
    assert report["sentences"][0]["decided_by"].startswith("veriproxy-nli-")
    assert _judge_requests(emulator) == []


def test_the_verify_route_escalates_too(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = _answer_or_judge("contradicted")
    proxy = proxy_factory(_config(emulator, _escalate()))
    evidence = [{"pmid": d["pmid"], "title": d["title"], "abstract": d["text"]} for d in DOCUMENTS]
    response = httpx.post(
        f"{proxy.url}/v1/verify", json={"answer": SUPPORTED, "evidence": evidence}, timeout=120
    )
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["sentences"][0]["verdict"] == "contradicted"
    assert report["sentences"][0]["decided_by"] == DECIDED_BY
    assert report["escalation"]["judged"] == 1


def test_gate_mode_batches_the_sentences_that_complete_while_the_judge_works(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    """A slow judge (700 ms) and a three-sentence answer that streams in well under that: the
    sentences that complete while the first request runs wait and go together in the second
    (not one request each), and all three are released with the judge's verdict, in order."""
    slow_judge = "emu-slow-700"
    judge = judge_reply("unsupported")
    answer = f"{SUPPORTED} {OTHER_CLAIM} {SUPPORTED}"
    emulator.emulator.reply = lambda body: judge(body) if body["model"] == slow_judge else answer
    config = _config(emulator, _escalate())
    config["models"][JUDGE]["model"] = slow_judge  # the judge's upstream name for it
    proxy = proxy_factory(config)
    events = _stream(proxy, policy="clinical-strict")
    sentences = [e for e in events if e["type"] == "sentence"]
    [report] = [e for e in events if e["type"] == "report"]
    assert [s["index"] for s in sentences] == [0, 1, 2]
    assert {s["decided_by"] for s in sentences} == {DECIDED_BY}
    assert [s["verdict"] for s in sentences] == ["unsupported"] * 3
    judge_calls = [b for b in emulator.stats.requests if b["model"] == slow_judge]
    assert len(judge_calls) == report["escalation"]["requests"] == 2
    assert report["escalation"]["judged"] == 3
