"""``POST /v1/verify`` on a real proxy (uvicorn on loopback) with a tiny HF NLI model: the route's
parsing, errors and report shape; verdict quality is tested in tests/verifiers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from policies.protocol import load_schema
from proxy.testing.server_thread import RunningProxy

FIXTURES = Path(__file__).parents[2] / "fixtures" / "verification"
EVIDENCE = [json.loads(line) for line in (FIXTURES / "evidence.jsonl").read_text().splitlines()]
ANSWER = (
    "Hello! ALDH1 expression is associated with poorer prognosis in breast cancer [PMID:45638119]. "
    "CDCA increased energy expenditure [PMID:12345678]."
)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("tiny-nli")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "aldh1", "prognosis"]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=512,
        num_labels=3,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(path)
    transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt")).save_pretrained(path)
    return path


@pytest.fixture
def verify_proxy(proxy_factory: Callable[..., RunningProxy], model_dir: Path) -> RunningProxy:
    verifier = {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}}
    return proxy_factory(
        {"verification": {"verifier": verifier, "enabled": False}, "retrieval": {"enabled": True}}
    )


def post(proxy: RunningProxy, body: Any) -> httpx.Response:
    return httpx.post(f"{proxy.base_url}/verify", json=body, timeout=60)


def test_verifies_answer_against_given_evidence(verify_proxy: RunningProxy) -> None:
    resp = post(verify_proxy, {"answer": ANSWER, "evidence": EVIDENCE})
    assert resp.status_code == 200
    report = resp.json()
    jsonschema.validate(report, load_schema("response_report"))
    verdicts = [s["verdict"] for s in report["sentences"]]
    assert verdicts[0] == "not_checkworthy"
    assert verdicts[2] == "invalid_citation"
    sentence = report["sentences"][1]
    start = sentence["text"].index("[PMID:45638119]")
    assert sentence["citations"][0] == {
        "raw": "[PMID:45638119]",
        "pmid": "45638119",
        "start": start,
        "end": start + len("[PMID:45638119]"),
        "valid": True,
        "quote": "",
    }
    assert ANSWER[sentence["start"] : sentence["end"]] == sentence["text"]
    assert report["faithful"] is False
    # The caller's policy applies (here ``default``): a fabricated citation is never "verified".
    assert report["policy"] == "default"
    assert report["status"] == "flagged" and "flag-invalid-citation" in report["rules_fired"]
    assert report["sentences"][2]["action"] == "flag"


@pytest.mark.parametrize(
    ("policy", "how", "status", "rule"),
    [
        ("clinical-strict", "body", "redacted", "redact-fabricated-citation"),
        ("clinical-strict", "header", "redacted", "redact-fabricated-citation"),
        ("veterinary", "body", "redacted", "redact-invalid-citation"),
    ],
)
def test_the_named_policy_decides_the_status(
    verify_proxy: RunningProxy, policy: str, how: str, status: str, rule: str
) -> None:
    body: dict[str, Any] = {"answer": ANSWER, "evidence": EVIDENCE}
    headers = {}
    if how == "body":
        body["veriproxy"] = {"policy": policy}
    else:
        headers["X-Veriproxy-Policy"] = policy
    resp = httpx.post(f"{verify_proxy.base_url}/verify", json=body, headers=headers, timeout=60)
    assert resp.status_code == 200, resp.text
    report = resp.json()
    assert report["policy"] == policy and report["status"] == status
    assert rule in report["rules_fired"]


def test_unknown_policy_is_a_400(verify_proxy: RunningProxy) -> None:
    resp = post(
        verify_proxy, {"answer": ANSWER, "evidence": EVIDENCE, "veriproxy": {"policy": "x"}}
    )
    assert resp.status_code == 400
    assert resp.json()["error"]["param"] == "veriproxy.policy"


def test_evidence_as_text_with_numeric_ids(verify_proxy: RunningProxy) -> None:
    record = {"pmid": 1568684, "title": "CDCA", "abstract": "Energy expenditure rose by 5%."}
    resp = post(
        verify_proxy, {"answer": "Energy expenditure rose by 50% [1].", "evidence": [record]}
    )
    assert resp.status_code == 200
    [sentence] = resp.json()["sentences"]
    assert sentence["citations"][0]["pmid"] == "1568684"
    assert sentence["verdict"] == "contradicted"  # the numbers check: 50% vs 5%


def test_quoted_citations_are_checked(verify_proxy: RunningProxy) -> None:
    quoted = "Of the 217 passengers and crew on board, 128 tested positive for COVID-19"
    answer = (
        f'Most of those on board tested positive [PMID:biho913w "{quoted}"]. '
        f'Most were evacuated [PMID:biho913w "{quoted.replace("128", "182")}"].'
    )
    resp = post(verify_proxy, {"answer": answer, "evidence": EVIDENCE})
    assert resp.status_code == 200
    report = resp.json()
    jsonschema.validate(report, load_schema("response_report"))
    found, misquoted = report["sentences"]
    assert found["citations"][0]["quote"] == quoted
    assert found["premise"] == "quote"
    assert [q["status"] for q in found["quotes"]] == ["found"]
    span = found["quotes"][0]["spans"][0]
    abstract = " ".join(next(r for r in EVIDENCE if r["pmid"] == "biho913w")["sentences"])
    assert abstract[span["start"] : span["end"]] == quoted
    # Too short to be check-worthy: what it quotes is checked all the same.
    assert misquoted["verdict"] == "not_checkworthy"
    assert misquoted["quotes"][0]["status"] == "misquote"
    assert "'182'" in misquoted["quotes"][0]["difference"]
    assert report["status"] == "flagged" and "flag-misquote" in report["rules_fired"]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"evidence": EVIDENCE}, "answer"),
        ({"answer": "", "evidence": EVIDENCE}, "answer"),
        ({"answer": "x", "evidence": [{"title": "no id"}]}, "evidence.0.pmid"),
        ({"answer": "x"}, "evidence"),
        ({"answer": "x", "question": "q", "top_k": 0}, "top_k"),
        ([1, 2], None),
    ],
)
def test_bad_bodies_get_openai_errors(
    verify_proxy: RunningProxy, body: Any, param: str | None
) -> None:
    resp = post(verify_proxy, body)
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param


def test_broken_json_is_a_400(verify_proxy: RunningProxy) -> None:
    resp = httpx.post(f"{verify_proxy.base_url}/verify", content=b"{nope")
    assert resp.status_code == 400 and "not valid JSON" in resp.json()["error"]["message"]


def test_question_retrieves_from_the_demo_index(verify_proxy: RunningProxy) -> None:
    question = "Does ibuprofen increase perioperative blood loss during hip arthroplasty?"
    body = {"answer": "Ibuprofen increases perioperative blood loss.", "question": question}
    resp = post(verify_proxy, {**body, "top_k": 3})
    assert resp.status_code == 200
    [sentence] = resp.json()["sentences"]
    assert sentence["verdict"] in {"uncited", "contradicted"}  # no citation: checked against all
    assert 1 <= len(resp.json()["evidence"]) <= 3


def test_question_with_retrieval_disabled_is_503(
    proxy_factory: Callable[..., RunningProxy], model_dir: Path
) -> None:
    verifier = {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}}
    proxy = proxy_factory(
        {"verification": {"verifier": verifier, "enabled": False}, "retrieval": {"enabled": False}}
    )
    resp = post(proxy, {"answer": "Aspirin helps.", "question": "Does aspirin help?"})
    assert resp.status_code == 503
    assert resp.json()["error"]["type"] == "service_unavailable"


def test_a_whole_verify_honours_its_deadline(
    proxy_factory: Callable[..., RunningProxy], model_dir: Path
) -> None:
    """Issue 26 item 14: the verifier checks its deadline between batches of sentences, and
    one batch over a large evidence set ran far past it (10 items, 1 sentence: 24 s for 20 s).
    Now the request itself ends at the deadline, reported ``unverified`` (the verifier alone
    would have judged this one sentence whole and said nothing of a deadline).

    The sentence cites all five abstracts of 1,000 sentences each: about 0.35 s of work on a
    2-core machine, 35 times the deadline, so a fast machine cannot finish it in time (citing
    one abstract under a 0.05 s deadline did, once, on CI)."""
    verifier = {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}}
    proxy = proxy_factory(
        {"verification": {"verifier": verifier, "enabled": False, "timeout_seconds": 0.01}}
    )
    sentences = " ".join(f"Aspirin dose {i} lowered fever in trial {i}." for i in range(1000))
    pmids = [str(10_000_000 + i) for i in range(5)]
    evidence = [{"pmid": pmid, "text": sentences} for pmid in pmids]
    answer = f"Aspirin lowers fever [{', '.join(f'PMID:{pmid}' for pmid in pmids)}]."
    resp = post(proxy, {"answer": answer, "evidence": evidence})
    assert resp.status_code == 200, resp.text
    report = resp.json()
    assert report["status"] != "verified"
    # The request's deadline, not the verifier's between-batch check ("0 of 1 sentences").
    assert "verification did not finish within 0.01 s)" in report["error"]
