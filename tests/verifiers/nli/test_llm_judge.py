from __future__ import annotations

import json

import httpx
import pytest
import respx

from verifiers.nli import NLIError, NLIPair
from verifiers.nli.llm_judge import parse_judgement
from verifiers.nli.registry import backend_names, create_backend

URL = "http://judge.test/v1/chat/completions"
PAIRS = [
    NLIPair("Whole-body energy expenditure was increased upon CDCA treatment.", "CDCA raises it."),
    NLIPair("Whole-body energy expenditure was increased upon CDCA treatment.", "CDCA lowers it."),
    NLIPair("Whole-body energy expenditure was increased upon CDCA treatment.", "Sky is blue."),
]


def completion(content: str) -> httpx.Response:
    message = {"role": "assistant", "content": content}
    return httpx.Response(
        200,
        json={
            "id": "j",
            "object": "chat.completion",
            "created": 0,
            "model": "judge",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_judge_batches_pairs_and_reads_labels() -> None:
    reply = {
        "results": [
            {"id": 1, "label": "entailment", "confidence": 0.9},
            {"id": 2, "label": "contradiction", "confidence": 0.8},
            {"id": 3, "label": "neutral", "confidence": 1.0},
        ]
    }
    route = respx.post(URL).mock(return_value=completion("```json\n" + json.dumps(reply) + "\n```"))
    judge = create_backend(
        "llm", model="openai/judge", api_base="http://judge.test/v1", api_key="k"
    )
    scores = judge.predict(PAIRS)
    assert route.call_count == 1
    sent = json.loads(route.calls[0].request.content)
    assert "Pair 3" in sent["messages"][1]["content"]
    assert [s.label.value for s in scores] == ["entailment", "contradiction", "neutral"]
    assert scores[0].entailment == pytest.approx(0.9)
    assert scores[0].neutral == pytest.approx(0.05)


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_judge_failures_raise_nli_error() -> None:
    respx.post(URL).mock(return_value=httpx.Response(500, json={"error": {"message": "down"}}))
    judge = create_backend(
        "llm", model="openai/judge", api_base="http://judge.test/v1", api_key="k", timeout_s=5
    )
    with pytest.raises(NLIError, match="LLM judge"):
        judge.predict(PAIRS[:1])


def test_malformed_replies_are_rejected() -> None:
    with pytest.raises(NLIError):
        parse_judgement('{"results": [{"id": 1, "label": "maybe"}]}', 1)
    with pytest.raises(NLIError):
        parse_judgement('{"results": []}', 1)
    with pytest.raises(NLIError):
        parse_judgement("no json here", 1)


def test_registry_knows_the_three_backends() -> None:
    assert {"bundled", "hf", "llm"} <= set(backend_names())
    with pytest.raises(NLIError, match="unknown NLI backend"):
        create_backend("nope")
