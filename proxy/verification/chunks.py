"""Reading content out of OpenAI stream chunks and building the chunks veriproxy adds.

These read choice 0; every other choice is taken out of the stream and verified by
:mod:`proxy.verification.choices`.
Annotation and report chunks carry no content, so a naive ``chunk.choices[0].delta.content``
loop and the official SDK both keep working; the payload sits in a top-level ``verification``
field with a ``type`` of ``sentence`` or ``report``, and the answer's citations in the report
chunk's ``delta.annotations`` (OpenAI's place for them in a stream).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proxy.streaming import StreamChunk
from proxy.verification import render
from proxy.verification.shapes import CONTENT_FILTER, STOP, strict_index
from verifiers import ResponseReport, SentenceAnnotation, to_json
from verifiers.schema import STREAM_TYPES

KEEP_ALIVE = StreamChunk(raw=b": keep-alive\n\n")  # stands for an upstream comment


def first_choice(data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Choice 0 of a chunk, or None (usage-only chunks have no choices)."""
    if not data:
        return None
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            return choice
    return None


def finish_reason(data: Mapping[str, Any] | None) -> str | None:
    choice = first_choice(data)
    reason = choice.get("finish_reason") if choice is not None else None
    return reason if isinstance(reason, str) else None


def template_of(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The envelope fields (id, created, model, …) our own chunks copy from the upstream's."""
    return render.envelope(data or {}, "chat.completion.chunk")


@dataclass(frozen=True)
class BlockMessageChunk(StreamChunk):
    """The policy's block message, sent to a chat client as content, or in a structured answer
    (JSON, a forced tool call) as the ``refusal`` OpenAI gives a declined structured answer
    (content would break the object the client is parsing); a dialect that has a refusal of its
    own (Responses) sends ``message`` as that, in either case."""

    message: str = ""


def block_message_chunk(
    template: Mapping[str, Any], separator: str, message: str, *, structured: bool
) -> StreamChunk:
    plain = (
        _chunk(template, {"refusal": message}, None)
        if structured
        else content_chunk(template, separator + message)
    )
    return BlockMessageChunk(raw=plain.raw, data_text=plain.data_text, message=message)


def block_finish_reason(*, structured: bool, refused: bool) -> str:
    """How a blocked stream finishes: ``content_filter``, except for a structured answer
    declined with a refusal, which finishes ``stop`` as OpenAI's refusals do (the SDK's stream
    helper raises on ``content_filter`` before it reads a refusal)."""
    return STOP if structured and refused else CONTENT_FILTER


def role_chunk(template: Mapping[str, Any]) -> StreamChunk:
    return _chunk(template, {"role": "assistant"}, None)


def delta_chunk(template: Mapping[str, Any], delta: Mapping[str, Any]) -> StreamChunk:
    """A delta of fields rendered by :mod:`proxy.verification.render`."""
    return _chunk(template, delta, None)


def content_chunk(template: Mapping[str, Any], text: str) -> StreamChunk:
    return _chunk(template, {"content": text}, None)


def finish_chunk(template: Mapping[str, Any], reason: str) -> StreamChunk:
    return _chunk(template, {}, reason)


def sentence_chunk(template: Mapping[str, Any], sentence: SentenceAnnotation) -> StreamChunk:
    return _chunk(
        template, {}, None, {"type": STREAM_TYPES[SentenceAnnotation], **to_json(sentence)}
    )


def report_chunk(
    template: Mapping[str, Any],
    report: ResponseReport,
    annotations: Sequence[Mapping[str, Any]] = (),
) -> StreamChunk:
    """The report; its delta holds the ``url_citation`` annotations of the text shown, when
    there are any (:mod:`proxy.verification.annotations`), and is empty otherwise."""
    delta = {"annotations": [dict(a) for a in annotations]} if annotations else {}
    return _chunk(template, delta, None, {"type": STREAM_TYPES[ResponseReport], **to_json(report)})


def split_tail(data: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(now, held)``: what of a chunk may go to the client at once, and the upstream's finish
    or usage part, which waits until the annotations and the report are out (clients stop
    reading at ``finish_reason``, and the SDK's stream helper keeps the last chunk's usage)."""
    if not data.get("choices"):
        return None, dict(data)
    reason = finish_reason(data)
    if reason is None:
        return dict(data), None
    now_choices = []
    for choice in data["choices"]:
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            if choice.get("delta") or choice.get("logprobs"):
                now_choices.append({**choice, "finish_reason": None})
        else:
            now_choices.append(choice)
    now = {**data, "choices": now_choices} if now_choices else None
    if now is not None and now.get("usage") is not None:
        now["usage"] = None
    held = {**data, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}
    return now, held


def with_content(data: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A chunk with choice 0's text replaced by ``text`` (quotes stripped) and its token
    log-probabilities dropped (they spell the words as the model wrote them)."""
    choices = []
    first = True
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and strict_index(choice.get("index")) == 0:
            delta = choice.get("delta")
            content = text if first else ""
            first = False
            delta = {**delta, "content": content} if isinstance(delta, Mapping) else delta
            choice = {**choice, "delta": delta, "logprobs": None}
        choices.append(choice)
    return {**data, "choices": choices}


def with_finish(data: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """A held finish chunk with choice 0's ``finish_reason`` replaced (a block)."""
    choices = [
        {**c, "finish_reason": reason} if isinstance(c, Mapping) and c.get("index", 0) == 0 else c
        for c in data.get("choices") or ()
    ]
    return {**data, "choices": choices}


def usage_chunk(template: Mapping[str, Any], usage: Mapping[str, Any]) -> StreamChunk:
    """The usage chunk (``choices: []``), as OpenAI sends it last for ``include_usage``."""
    return StreamChunk.from_data({**template, "choices": [], "usage": dict(usage)})


def tool_calls_chunk(template: Mapping[str, Any], calls: list[dict[str, Any]]) -> StreamChunk:
    """Whole tool calls (gate mode releases them once their arguments are verified)."""
    indexed = [{"index": i, **call} for i, call in enumerate(calls)]
    return _chunk(template, {"tool_calls": indexed}, None)


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
