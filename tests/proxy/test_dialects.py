"""The chat views of legacy completions and the Responses API (proxy.dialects), on the wire
shapes OpenAI documents."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.dialects import CompletionsDialect, ResponsesDialect, UnverifiedRequest

REPORT = {"status": "verified", "sentences": []}


def response_with(*items: dict[str, Any]) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": "completed", "output": list(items)}


def message(*texts: str) -> dict[str, Any]:
    parts = [{"type": "output_text", "text": t, "annotations": [], "logprobs": [{}]} for t in texts]
    return {"type": "message", "id": "msg_1", "role": "assistant", "content": parts}


def test_responses_answer_joins_message_text_only() -> None:
    data = response_with(
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "x"}]},
        message("One. ", "Two."),
    )
    assert ResponsesDialect().answer(data) == "One. Two."


def test_responses_apply_lists_what_is_not_verified_and_drops_logprobs() -> None:
    data = response_with(
        {"type": "reasoning", "id": "rs_1", "summary": []},
        message("One. ", "Two."),
        {"type": "function_call", "id": "fc_1", "name": "f", "arguments": "{}"},
    )
    out = ResponsesDialect().apply(data, "One. [removed]", None, REPORT)
    parts = out["output"][1]["content"]  # rendered: one part, the verified text
    assert parts == [{"type": "output_text", "text": "One. [removed]", "annotations": []}]
    items = out["verification"]["unverified_items"]
    assert [(i["type"], i["id"]) for i in items] == [
        ("reasoning", "rs_1"),
        ("function_call", "fc_1"),
    ]
    assert all(i["reason"] for i in items)
    assert out["status"] == "completed"
    assert data["output"][1]["content"][0]["text"] == "One. "  # the input is not changed


def test_responses_block_is_incomplete_content_filter() -> None:
    out = ResponsesDialect().apply(response_with(message("x")), "", "content_filter", REPORT)
    assert out["status"] == "incomplete"
    assert out["incomplete_details"] == {"reason": "content_filter"}


def test_responses_view_and_injection() -> None:
    dialect = ResponsesDialect()
    body = {
        "model": "m",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Q?"}]},
            {"type": "function_call_output", "call_id": "c", "output": "42"},
        ],
    }
    assert dialect.messages(body) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Q?"},
    ]
    out = dialect.inject(body, [{"role": "system", "content": "EVIDENCE"}])
    assert out["instructions"] == "Be brief.\n\nEVIDENCE"
    assert out["input"] == body["input"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"prompt": ["a", "b"]}, "not one string"),
        ({"prompt": [1, 2, 3]}, "not one string"),
        ({"prompt": "a", "n": 2}, "n > 1"),
        ({"prompt": "a", "best_of": 3}, "best_of > 1"),
        ({"prompt": "a", "echo": True}, "echo"),
    ],
)
def test_completions_that_cannot_be_verified_say_why(body: dict[str, Any], reason: str) -> None:
    view = CompletionsDialect().messages(body)
    assert isinstance(view, UnverifiedRequest)
    assert reason in view.reason


def test_completions_evidence_goes_ahead_of_the_prompt() -> None:
    dialect = CompletionsDialect()
    body = {"model": "m", "prompt": "Q?"}
    assert dialect.messages(body) == [{"role": "user", "content": "Q?"}]
    out = dialect.inject(body, [{"role": "system", "content": "EVIDENCE"}])
    assert out["prompt"] == "EVIDENCE\n\nQ?"
