"""Every answer shape is verified or reported ``unverified`` with a reason, and nothing withheld
travels in another field: the real proxy (bundled verifier, shipped policies) in front of the
emulator or of a hostile upstream that answers whatever JSON a test gives it.

Regression tests for issue 15: logprobs and other choices leaked withheld text (1); parts
lists, missing choices, only choice 1 and a string ``message`` went out unverified and
unaudited, the last one as a 500 (4); annotate-mode blocks said ``blocked`` for delivered text
depending on the upstream's speed (5)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from proxy.testing.server_thread import RunningEmulator, RunningProxy, ServerThread
from tests.conftest import ProxyFactory
from tests.proxy.ibuprofen import DOCUMENTS, FABRICATED, QUESTION, SUPPORTED, WRONG_DOSE

LATER = "The trial enrolled fifty patients."


class Hostile:
    """An upstream that answers the JSON body (or the SSE events) a test sets."""

    def __init__(self) -> None:
        self.body: Any = None
        self.events: list[Any] = []

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            if (await request.json()).get("stream"):
                lines = [f"data: {json.dumps(e)}\n\n" for e in self.events] + ["data: [DONE]\n\n"]
                return Response("".join(lines), media_type="text/event-stream")
            return JSONResponse(self.body)

        return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


@pytest.fixture(scope="module")
def _hostile_server() -> Iterator[tuple[Hostile, str]]:
    hostile = Hostile()
    with ServerThread(hostile.app()) as server:
        yield hostile, server.url


@pytest.fixture
def hostile(_hostile_server: tuple[Hostile, str]) -> Hostile:
    return _hostile_server[0]


def _proxy(factory: ProxyFactory, tmp_path: Path, upstream: str | None = None) -> RunningProxy:
    config: dict[str, Any] = {
        "verification": {"enabled": True},
        "audit": {"jsonl": str(tmp_path / "audit.jsonl")},
    }
    if upstream is not None:
        config["default_upstream"] = {"base_url": f"{upstream}/v1"}
    return factory(config)


def _audit(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def _body(policy: str, **extra: Any) -> dict[str, Any]:
    options = {"documents": DOCUMENTS, "policy": policy}
    return {"model": "gpt-x", "messages": QUESTION, "veriproxy": options} | extra


def _post(proxy: RunningProxy, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=120)


def _sse(response: httpx.Response) -> list[dict[str, Any]]:
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


def _completion(content: Any, *, index: int = 0, **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-x",
        "choices": [
            {
                "index": index,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
    }


# -- the answer-shape matrix (non-streamed) ---------------------------------------------------

TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
SHAPES: dict[str, tuple[Any, str | None]] = {
    # name: (the upstream's completion, the reason it cannot be verified or None)
    "string": (_completion(SUPPORTED), None),
    "parts": (_completion([{"type": "text", "text": SUPPORTED}]), None),
    "parts-with-image": (
        _completion([{"type": "text", "text": SUPPORTED}, {"type": "image_url", "image_url": {}}]),
        "content part of type 'image_url'",
    ),
    "null-content": (_completion(None), "no text content"),
    "message-as-string": (
        {**_completion(None), "choices": [{"index": 0, "message": SUPPORTED}]},
        "is not an object",
    ),
    "missing-choices": ({"id": "chatcmpl-hostile", "object": "chat.completion"}, "no choices"),
    "only-choice-1": (_completion(WRONG_DOSE, index=1), None),
    "tool-call-no-text": (_completion(None, tool_calls=[TOOL_CALL]), "holds no text"),
}


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("policy", ["default", "clinical-strict"])
def test_answer_shape_matrix_never_passes_silently(
    proxy_factory: ProxyFactory,
    _hostile_server: tuple[Hostile, str],
    tmp_path: Path,
    name: str,
    policy: str,
) -> None:
    hostile, url = _hostile_server
    upstream, reason = SHAPES[name]
    hostile.body = upstream
    proxy = _proxy(proxy_factory, tmp_path, url)
    response = _post(proxy, _body(policy))
    assert response.status_code == 200, response.text
    completion = response.json()
    report = completion["verification"]
    [record] = _audit(proxy)
    assert record["status"] == report["status"] == response.headers["x-veriproxy-status"]
    if reason is None:
        assert report["error"] is None and report["sentences"], report
        assert all(s["verdict"] for s in report["sentences"])
        return
    # Not verified: said so, with the reason, and the policy decided.
    assert reason in report["error"] and reason in record["error"]
    if policy == "clinical-strict":  # on_verifier_error: closed
        assert report["status"] == "blocked"
        [choice] = completion["choices"]
        assert choice["finish_reason"] == "content_filter"
        assert SUPPORTED not in json.dumps(completion)
    else:  # on_verifier_error: flag
        assert report["status"] == "flagged"


def test_parts_list_is_verified_as_text_and_redacted(
    proxy_factory: ProxyFactory, _hostile_server: tuple[Hostile, str], tmp_path: Path
) -> None:
    hostile, url = _hostile_server
    hostile.body = _completion([{"type": "text", "text": f"{SUPPORTED} {FABRICATED}"}])
    proxy = _proxy(proxy_factory, tmp_path, url)
    completion = _post(proxy, _body("clinical-strict")).json()
    report = completion["verification"]
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "invalid_citation"]
    assert report["status"] == "redacted"
    assert "wound infection" not in json.dumps(completion)


# -- n > 1 ------------------------------------------------------------------------------------


def test_every_choice_is_verified_and_enforced(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    proxy = _proxy(proxy_factory, tmp_path)
    with openai.OpenAI(base_url=proxy.base_url, api_key="sk-x", max_retries=0) as client:
        completion = client.chat.completions.create(
            model="gpt-x",
            messages=QUESTION,
            n=2,
            extra_body={"veriproxy": {"documents": DOCUMENTS, "policy": "clinical-strict"}},
        )
    assert "200 mg" not in completion.model_dump_json()
    assert [c.finish_reason for c in completion.choices] == ["content_filter"] * 2
    reports = [(c.model_extra or {})["verification"] for c in completion.choices]
    assert [r["status"] for r in reports] == ["blocked", "blocked"]
    assert [r["choice"] for r in reports] == [0, 1]
    assert sorted(r["choice"] for r in _audit(proxy)) == [0, 1]


@pytest.mark.parametrize("policy", ["clinical-strict", "veterinary"])
def test_streamed_second_choice_never_carries_the_blocked_sentence(
    proxy_factory: ProxyFactory, _hostile_server: tuple[Hostile, str], tmp_path: Path, policy: str
) -> None:
    hostile, url = _hostile_server
    hostile.events = [
        _chunk(0, {"role": "assistant", "content": ""}),
        _chunk(1, {"role": "assistant", "content": ""}),
        *(_chunk(0, {"content": w}) for w in _words(f"{SUPPORTED} {LATER}")),
        *(_chunk(1, {"content": w}) for w in _words(f"{SUPPORTED} {WRONG_DOSE} {LATER}")),
        _chunk(0, {}, "stop"),
        _chunk(1, {}, "stop"),
    ]
    proxy = _proxy(proxy_factory, tmp_path, url)
    chunks = _sse(_post(proxy, _body(policy, stream=True, n=2)))
    assert "200 mg" not in json.dumps(chunks)  # not in content, logprobs or annotations
    text = {0: "", 1: ""}
    finish: dict[int, str] = {}
    reports: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            text[choice["index"]] += choice["delta"].get("content") or ""
            if choice["finish_reason"]:
                finish[choice["index"]] = choice["finish_reason"]
        if chunk.get("verification", {}).get("type") == "report":
            reports[chunk["choices"][0]["index"]] = chunk["verification"]
    assert text[0] == f"{SUPPORTED} {LATER}"
    assert finish == {0: "stop", 1: "content_filter"}
    assert reports[1]["status"] == "blocked" and reports[1]["choice"] == 1
    assert reports[0]["status"] != "blocked"
    assert {r["choice"]: r["status"] for r in _audit(proxy)}[1] == "blocked"


def _chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-x",
        "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _words(text: str) -> list[str]:
    return [w + " " for w in text.split(" ")[:-1]] + [text.split(" ")[-1]]


# -- logprobs ---------------------------------------------------------------------------------


def _tokens(chunks: list[dict[str, Any]]) -> str:
    out = ""
    for chunk in chunks:
        for choice in chunk["choices"]:
            for entry in (choice.get("logprobs") or {}).get("content") or ():
                out += entry["token"]
    return out


def test_gate_stream_logprobs_carry_only_released_text(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {FABRICATED} {WRONG_DOSE}"
    proxy = _proxy(proxy_factory, tmp_path)
    chunks = _sse(_post(proxy, _body("clinical-strict", stream=True, logprobs=True)))
    raw = json.dumps(chunks)
    assert "200 mg" not in raw and "wound" not in raw  # blocked / redacted: in no field
    assert _tokens(chunks) == f"{SUPPORTED} "  # the released text's tokens, no more


def test_redacted_completion_keeps_logprobs_of_shown_text_only(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {FABRICATED}"
    proxy = _proxy(proxy_factory, tmp_path)
    completion = _post(proxy, _body("clinical-strict", logprobs=True)).json()
    assert completion["verification"]["status"] == "redacted"
    assert "wound" not in json.dumps(completion)
    assert _tokens([completion]) == f"{SUPPORTED} "


def test_blocked_completion_has_no_logprobs(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    proxy = _proxy(proxy_factory, tmp_path)
    completion = _post(proxy, _body("clinical-strict", logprobs=True)).json()
    assert completion["choices"][0]["finish_reason"] == "content_filter"
    assert completion["choices"][0]["logprobs"] is None
    assert "200 mg" not in json.dumps(completion)


# -- annotate-mode blocks ---------------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-x", "emu-drip-30"])
def test_annotate_block_reports_what_was_delivered(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path, model: str
) -> None:
    """A fast upstream (all text out before verification ends) and a slow one give the same
    account: the block is enforced where it is known (``content_filter``, the block message),
    and the report says ``flagged`` with ``delivered_before_block``, never ``blocked``."""
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE} {LATER}"
    proxy = _proxy(proxy_factory, tmp_path)
    chunks = _sse(_post(proxy, _body("veterinary", stream=True, model=model)))
    [report] = [
        c["verification"] for c in chunks if c.get("verification", {}).get("type") == "report"
    ]
    assert report["action"] == "block"
    assert report["status"] == "flagged" and report["delivered_before_block"] is True
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert [f for f in finishes if f] == ["content_filter"]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert "veterinarian" in text  # the veterinary block message
    [record] = _audit(proxy)
    assert record["status"] == "flagged" and record["delivered_before_block"] is True
