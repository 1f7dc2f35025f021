"""Reading content out of OpenAI stream chunks and building the chunks veriproxy adds.

Only choice 0 is verified (``n > 1`` answers pass through unverified beyond the first choice).
Annotation and report chunks carry an empty delta, so a naive
``chunk.choices[0].delta.content`` loop and the official SDK both keep working; the payload
sits in a top-level ``verification`` field with a ``type`` of ``sentence`` or ``report``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.streaming import StreamChunk
from verifiers import ResponseReport, SentenceAnnotation, to_json

_TEMPLATE_KEYS = ("id", "object", "created", "model", "system_fingerprint")


def first_choice(data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Choice 0 of a chunk, or None (usage-only chunks have no choices)."""
    if not data:
        return None
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            return choice
    return None


def delta_content(data: Mapping[str, Any] | None) -> str:
    choice = first_choice(data)
    if choice is None:
        return ""
    delta = choice.get("delta") or {}
    content = delta.get("content") if isinstance(delta, Mapping) else None
    return content if isinstance(content, str) else ""


def finish_reason(data: Mapping[str, Any] | None) -> str | None:
    choice = first_choice(data)
    reason = choice.get("finish_reason") if choice is not None else None
    return reason if isinstance(reason, str) else None


def template_of(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The envelope fields (id, created, model, …) our own chunks copy from the upstream's."""
    base: dict[str, Any] = {"object": "chat.completion.chunk"}
    if data:
        base.update({k: data[k] for k in _TEMPLATE_KEYS if k in data})
    return base


def content_chunk(template: Mapping[str, Any], text: str) -> StreamChunk:
    return _chunk(template, {"content": text}, None)


def finish_chunk(template: Mapping[str, Any], reason: str) -> StreamChunk:
    return _chunk(template, {}, reason)


def sentence_chunk(template: Mapping[str, Any], sentence: SentenceAnnotation) -> StreamChunk:
    return _chunk(template, {}, None, {"type": "sentence", **to_json(sentence)})


def report_chunk(template: Mapping[str, Any], report: ResponseReport) -> StreamChunk:
    return _chunk(template, {}, None, {"type": "report", **to_json(report)})


def without_content(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The chunk with choice 0's content removed, or None when nothing is left in it (gate mode
    holds content back but still forwards the role, tool calls and other choices at once)."""
    choices = []
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            delta = {k: v for k, v in (choice.get("delta") or {}).items() if k != "content"}
            if not delta and choice.get("finish_reason") is None and not choice.get("logprobs"):
                continue
            choice = {**choice, "delta": delta}
        choices.append(choice)
    if not choices and data.get("choices"):
        return None
    return {**data, "choices": choices}


def _chunk(
    template: Mapping[str, Any],
    delta: Mapping[str, Any],
    reason: str | None,
    verification: Mapping[str, Any] | None = None,
) -> StreamChunk:
    data: dict[str, Any] = {
        **template,
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": reason}],
    }
    if verification is not None:
        data["verification"] = dict(verification)
    return StreamChunk.from_data(data)
