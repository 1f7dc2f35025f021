"""Hostile answer shapes: what a broken or malicious upstream may send instead of OpenAI's.

The emulator answers in one of these shapes when a request asks for the mode
``hostile-<shape>`` (header ``X-Emulator-Mode`` or model ``emu-hostile-<shape>``). Each shape
carries the emulator's answer text somewhere a proxy that only knows OpenAI's usual fields
might not look, so an end-to-end test can search every byte the client received for the words
a policy withheld. The shapes are the modes of the adversarial probe of issue 26:

Chat (streamed and not): ``reasoning`` / ``refusal`` (the text in ``reasoning_content`` or
``refusal``), ``function-call`` (legacy ``function_call`` arguments), ``index-null`` /
``index-float`` / ``index-string`` (the choice's ``index`` is ``null``, ``1.0`` or ``"1"``),
``parts`` (content as a list of text parts), ``choice-text`` (the choice carries ``text``:
instead of a delta when streamed, beside the message when not), ``token-lead`` (logprob tokens
that begin with a space, each with itself as its top alternative), ``duplicate-keys`` (a JSON
answer whose key appears twice: the text first, an empty string last) and
``tool-duplicate-keys`` (the same inside tool-call arguments).

Completions: ``two-choices`` (two choices, each carrying the text, whatever ``n`` says).

Responses (streamed and not): ``output-text`` (a top-level ``output_text``), ``failed``
(streamed: an ``error`` event and ``response.failed`` after half the text), ``truncated``
(streamed: the stream stops after half the text), ``two-messages`` (a second message item
holds the text), ``refusal-part`` and ``text-part`` (content parts of type ``refusal`` /
``text``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

CHAT = (
    "reasoning",
    "refusal",
    "function-call",
    "index-null",
    "index-float",
    "index-string",
    "parts",
    "choice-text",
    "token-lead",
    "duplicate-keys",
    "tool-duplicate-keys",
)
COMPLETIONS = ("two-choices",)
RESPONSES = ("output-text", "failed", "truncated", "two-messages", "refusal-part", "text-part")
_LEAD = re.compile(r"\s*\S+|\s+")  # tokens that begin with their space: " ZEBRAQUUX"
_INDEX: dict[str, object] = {"index-null": None, "index-float": 1.0, "index-string": "1"}


def _envelope(kind: str) -> dict[str, Any]:
    return {"id": "chatcmpl-hostile", "object": kind, "created": 1, "model": "gpt-hostile"}


def _pieces(text: str) -> list[str]:
    return _LEAD.findall(text) or [text]


def _token_logprobs(tokens: list[str]) -> dict[str, Any]:
    def entry(token: str) -> dict[str, Any]:
        return {"token": token, "logprob": -0.1, "bytes": list(token.encode())}

    content = [{**entry(t), "top_logprobs": [entry(t)]} for t in tokens]
    return {"content": content, "refusal": None}


def _duplicate_json(text: str) -> str:
    """``{"answer": <text>, "answer": ""}``: a parser that keeps the last value sees no text."""
    return '{"answer": ' + json.dumps(text) + ', "answer": ""}'


def _tool_call(arguments: str, *, name: str = "report") -> dict[str, Any]:
    return {
        "id": "call_hostile",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


# -- chat -------------------------------------------------------------------------------------


def chat_completion(shape: str, text: str) -> bytes:
    """The non-streamed chat completion of ``shape`` carrying ``text``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
    if shape in ("reasoning", "refusal"):
        field = "reasoning_content" if shape == "reasoning" else "refusal"
        message = {"role": "assistant", "content": None, field: text}
    elif shape == "function-call":
        arguments = json.dumps({"answer": text})
        message = {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "report", "arguments": arguments},
        }
        choice["finish_reason"] = "function_call"
    elif shape in _INDEX:
        choice["index"] = _INDEX[shape]
    elif shape == "parts":
        message["content"] = [{"type": "text", "text": text}]
    elif shape == "choice-text":
        choice["text"] = text
    elif shape == "token-lead":
        choice["logprobs"] = _token_logprobs(_pieces(text))
    elif shape == "duplicate-keys":
        message["content"] = _duplicate_json(text)
    elif shape == "tool-duplicate-keys":
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [_tool_call(_duplicate_json(text))],
        }
        choice["finish_reason"] = "tool_calls"
    else:
        raise ValueError(f"unknown hostile chat shape {shape!r}")
    body = {**_envelope("chat.completion"), "choices": [{**choice, "message": message}]}
    return json.dumps(body).encode()


def chat_events(shape: str, text: str) -> Iterator[bytes]:
    """The SSE events of a streamed chat completion of ``shape`` carrying ``text``."""
    index: object = _INDEX.get(shape, 0)
    finish = "stop"

    def event(choice: dict[str, Any]) -> bytes:
        data = {**_envelope("chat.completion.chunk"), "choices": [{"index": index, **choice}]}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    yield event({"delta": {"role": "assistant", "content": ""}, "finish_reason": None})
    if shape in ("duplicate-keys", "tool-duplicate-keys", "function-call"):
        pieces = _pieces(
            _duplicate_json(text) if shape != "function-call" else json.dumps({"answer": text})
        )
    else:
        pieces = _pieces(text)
    for piece in pieces:
        choice: dict[str, Any] = {"finish_reason": None}
        if shape == "reasoning":
            choice["delta"] = {"reasoning_content": piece}
        elif shape == "refusal":
            choice["delta"] = {"refusal": piece}
        elif shape == "function-call":
            choice["delta"] = {"function_call": {"name": "report", "arguments": piece}}
            finish = "function_call"
        elif shape == "parts":
            choice["delta"] = {"content": [{"type": "text", "text": piece}]}
        elif shape == "choice-text":
            choice["text"] = piece
        elif shape == "token-lead":
            choice["delta"] = {"content": piece}
            choice["logprobs"] = _token_logprobs([piece])
        elif shape == "tool-duplicate-keys":
            call = {"index": 0, "function": {"arguments": piece}}
            if piece is pieces[0]:
                call = {"index": 0, **_tool_call(piece)}
            choice["delta"] = {"tool_calls": [call]}
            finish = "tool_calls"
        elif shape in _INDEX or shape == "duplicate-keys":
            choice["delta"] = {"content": piece}
        else:
            raise ValueError(f"unknown hostile chat shape {shape!r}")
        yield event(choice)
    yield event({"delta": {}, "finish_reason": finish})
    yield b"data: [DONE]\n\n"


# -- legacy completions -------------------------------------------------------------------------


def completion_choices(shape: str, text: str) -> list[dict[str, Any]]:
    """The ``choices`` of a completion of ``shape``: two, each carrying ``text``."""
    if shape != "two-choices":
        raise ValueError(f"unknown hostile completions shape {shape!r}")
    return [{"text": text, "index": i, "logprobs": None, "finish_reason": "stop"} for i in (0, 1)]


# -- responses --------------------------------------------------------------------------------


def _message(item_id: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "assistant",
        "content": list(parts),
    }


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def responses_output(shape: str, text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The ``output`` items of a response of ``shape``, and extra top-level fields."""
    first = _message("msg_hostile", _output_text(text))
    if shape == "output-text":
        return [_message("msg_hostile", _output_text(text))], {"output_text": text}
    if shape == "two-messages":
        return [first, _message("msg_hostile_2", _output_text(text))], {}
    if shape == "refusal-part":
        return [_message("msg_hostile", {"type": "refusal", "refusal": text})], {}
    if shape == "text-part":
        return [_message("msg_hostile", {"type": "text", "text": text})], {}
    if shape in ("failed", "truncated"):
        return [_message("msg_hostile", _output_text(text))], {}
    raise ValueError(f"unknown hostile responses shape {shape!r}")


def responses_events(shape: str, text: str, response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The events of a streamed response of ``shape``; ``response`` is its envelope."""
    output, extra = responses_output(shape, text)
    yield {
        "type": "response.created",
        "response": {**response, "status": "in_progress", "output": []},
    }
    for number, item in enumerate(output):
        at = {"item_id": item["id"], "output_index": number, "content_index": 0}
        yield {
            "type": "response.output_item.added",
            "output_index": number,
            "item": {**item, "content": []},
        }
        for part in item["content"]:
            yield {"type": "response.content_part.added", **at, "part": {**part, "text": ""}}
            body = part.get("text", part.get("refusal", ""))
            pieces = _pieces(body)
            if shape in ("failed", "truncated"):
                pieces = pieces[: max(1, len(pieces) // 2)]
            kind = "refusal" if part["type"] == "refusal" else "output_text"
            for piece in pieces:
                yield {"type": f"response.{kind}.delta", **at, "delta": piece}
            if shape == "failed":
                yield {
                    "type": "error",
                    "code": "server_error",
                    "message": "upstream failed",
                    "param": None,
                }
                failed = {
                    **response,
                    "status": "failed",
                    "error": {"code": "server_error", "message": "failed"},
                }
                yield {"type": "response.failed", "response": failed}
                return
            if shape == "truncated":
                return
            yield {
                "type": f"response.{kind}.done",
                **at,
                kind if kind == "refusal" else "text": body,
            }
            yield {"type": "response.content_part.done", **at, "part": part}
        yield {"type": "response.output_item.done", "output_index": number, "item": item}
    done = {**response, "status": "completed", "output": output, **extra}
    yield {"type": "response.completed", "response": done}
