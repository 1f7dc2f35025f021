"""The chat API's edge for a verified stream: typed events to ``chat.completion.chunk``\\ s.

Annotation and report chunks carry no content, so a naive ``chunk.choices[0].delta.content``
loop and the official SDK both keep working; the payload sits in a top-level ``verification``
field with a ``type`` of ``sentence`` or ``report``, and the answer's citations in the report
chunk's ``delta.annotations`` (OpenAI's place for them in a stream). Every chunk rendered here
is an :class:`EventChunk` that carries the event it renders, so a dialect renders the event in
its own format (:mod:`proxy.dialect_service`) and never reads the chat payload back.

Choice 0's chunks hold what OpenAI's do (no ``logprobs`` unless there are some); another
choice is released whole (:mod:`proxy.verification.choices`), each of its chunks with its
``logprobs`` field, as OpenAI streams ``n > 1``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from policies import DecidedReport, DecidedSentence
from policies.protocol import STREAM_TYPES
from proxy.streaming import StreamChunk
from proxy.verification import render
from proxy.verification.chunks import with_finish
from proxy.verification.events import (
    BlockMessage,
    Content,
    Finish,
    Forward,
    KeepAlive,
    Opened,
    OtherChoice,
    Report,
    Role,
    Sentence,
    StreamEvent,
    ToolCalls,
    Unread,
    Usage,
)
from verifiers import to_json

KEEP_ALIVE = b": keep-alive\n\n"  # stands for an upstream comment
DOCUMENTS_FIELD = "evidence_documents"


@dataclass(frozen=True)
class EventChunk(StreamChunk):
    """A chunk rendered from ``event``."""

    event: StreamEvent | None = None


def sentence_payload(sentence: DecidedSentence) -> dict[str, Any]:
    """A sentence's annotation as the protocol streams it (the ``verification`` field)."""
    return {"type": STREAM_TYPES[DecidedSentence], **to_json(sentence)}


def report_payload(report: DecidedReport) -> dict[str, Any]:
    """A report as the protocol streams it (the ``verification`` field)."""
    return {"type": STREAM_TYPES[DecidedReport], **to_json(report)}


async def chat_chunks(
    events: AsyncIterator[StreamEvent], documents: Sequence[Mapping[str, Any]] | None = None
) -> AsyncIterator[StreamChunk]:
    """``events`` as chat chunks; ``documents``: the injected abstracts, added to each report
    chunk (the ``include_evidence`` option). Closing this closes ``events`` (so the upstream is
    still cancelled when the client goes away)."""
    chunks = ChatChunks(documents)
    async with aclosing(events):  # type: ignore[type-var]
        async for event in events:
            chunk = chunks.render(event)
            if chunk is not None:
                yield chunk


class ChatChunks:
    """Renders events one at a time; each choice's chunks copy the envelope it was opened with."""

    def __init__(self, documents: Sequence[Mapping[str, Any]] | None = None) -> None:
        self._documents = documents
        self._envelopes: dict[int, Mapping[str, Any]] = {}

    def render(self, event: StreamEvent) -> StreamChunk | None:
        match event:
            case Opened(envelope, choice):
                self._envelopes[choice] = envelope
                return None
            case Forward(chunk, None):
                return chunk
            case Forward(chunk):
                return EventChunk(raw=chunk.raw, data_text=chunk.data_text, event=event)
            case KeepAlive():
                return EventChunk(raw=KEEP_ALIVE, event=event)
            case Role():
                return self._chunk(event, {"role": "assistant"})
            case Content(text, tokens, choice):
                return self._chunk(event, {"content": text}, tokens=tokens, choice=choice)
            case OtherChoice(index, delta, logprobs):
                return self._chunk(event, delta, choice=index, logprobs=logprobs)
            case Sentence(annotation, _, choice):
                return self._chunk(event, {}, choice=choice, payload=sentence_payload(annotation))
            case Report(_, shown, citations, choice):
                delta = {"annotations": [c.chat() for c in citations]} if citations else {}
                data = self._entry(delta, choice=choice, payload=report_payload(shown))
                if self._documents is not None:
                    data[DOCUMENTS_FIELD] = list(self._documents)
                return self._data(event, data)
            case BlockMessage(message, separator, structured):
                delta = {"refusal": message} if structured else {"content": separator + message}
                return self._chunk(event, delta)
            case ToolCalls(calls):
                indexed = [{"index": i, **call} for i, call in enumerate(calls)]
                return self._chunk(event, {"tool_calls": indexed})
            case Unread(fields):
                return self._chunk(event, fields)
            case Finish(reason, upstream, choice):
                if upstream is not None:
                    return self._data(event, with_finish(upstream, reason))
                return self._chunk(event, {}, reason=reason, choice=choice)
            case Usage(counts, upstream):
                usage = {**self._envelopes.get(0, {}), "choices": [], "usage": dict(counts)}
                return self._data(event, upstream if upstream is not None else usage)
        raise TypeError(f"not a stream event: {event!r}")

    def _chunk(self, event: StreamEvent, delta: Mapping[str, Any], **how: Any) -> StreamChunk:
        return self._data(event, self._entry(delta, **how))

    def _entry(
        self,
        delta: Mapping[str, Any],
        *,
        reason: str | None = None,
        choice: int = 0,
        tokens: Sequence[Mapping[str, Any]] | None = None,
        logprobs: object = None,
        payload: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One choice's chunk: its envelope, one entry of ``choices`` and the payload."""
        entry: dict[str, Any] = {"index": choice, "delta": dict(delta)}
        if choice:  # another choice's chunks always say what logprobs they carry
            entry["logprobs"] = logprobs
        entry["finish_reason"] = reason
        if tokens:
            entry["logprobs"] = render.logprobs(list(tokens))
        data: dict[str, Any] = {**self._envelopes.get(choice, {}), "choices": [entry]}
        if payload is not None:
            data["verification"] = dict(payload)
        return data

    def _data(self, event: StreamEvent, data: Mapping[str, Any]) -> StreamChunk:
        plain = StreamChunk.from_data(data)
        return EventChunk(raw=plain.raw, data_text=plain.data_text, event=event)
