"""The two stream modes of a policy, as chunk-stream transformers.

``annotate``: every upstream chunk goes to the client at once; sentences are verified in a
background task and their annotation chunks follow right after the next upstream chunk (or at
the end). A sentence the policy blocks stops the stream at the first point the block is known,
even when the upstream has already finished (its finish chunk is held until verification
ends): the block message and ``finish_reason: "content_filter"`` follow, and the upstream is
cancelled. The blocked sentence itself was already delivered, and with a fast upstream so may
be more: the report therefore says ``flagged`` with ``delivered_before_block: true``, never
``blocked``. Text already streamed cannot be taken back: ``redact`` is recorded, not enforced.

``gate``: content is held and each sentence is released only once it is verified and allowed;
a redacted sentence is replaced by the policy's message, a blocked one never reaches the
client. The role and other non-answer chunks pass at once.

Tool calls and a JSON answer (``response_format``) cannot be judged until they are complete:
their fragments are collected, and their string values are verified when the upstream is done
(:mod:`proxy.verification.answers`). In gate mode they are held until then and released whole,
redacted value by value (one content chunk of valid JSON, one chunk of complete tool calls); a
block releases none of them, and a JSON answer gets no block text appended (it would break the
JSON a client parses as it streams) -- just the ``content_filter`` finish.

Order, in both modes, as clients expect it: content, sentence annotations, the report, then the
upstream's ``finish_reason`` chunk and its usage chunk (held until verification ends: many
clients stop reading at ``finish_reason``, and the SDK's stream helper keeps the usage of the
last chunk); the chat service writes ``data: [DONE]`` last.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proxy.errors import ProxyError
from proxy.streaming import StreamChunk
from proxy.verification.answers import AnswerTexts, answer_texts, redact_message
from proxy.verification.chunks import (
    content_chunk,
    delta_content,
    finish_chunk,
    report_chunk,
    sentence_chunk,
    split_tail,
    template_of,
    tool_call_deltas,
    tool_calls_chunk,
    with_finish,
    without_fields,
)
from proxy.verification.logprobs import (
    TokenLog,
    first_logprobs,
    with_token_entries,
    without_logprobs,
)
from proxy.verification.session import Outcome, VerificationSession
from verifiers import Action, ResponseReport, SentenceAnnotation

CONTENT_FILTER = "content_filter"
Finished = Callable[[Outcome, str], None]  # called once with the outcome and the full answer


@dataclass(frozen=True, slots=True)
class StreamShape:
    """What the request asked for: ``json_content`` -- the answer's content is JSON."""

    json_content: bool = False


def failure_reason(exc: ProxyError) -> str:
    """The audit reason for an answer that failed: status and code only, never upstream text."""
    return f"the answer failed (HTTP {exc.status}, {exc.code or exc.type}) and was not verified"


class _Held:
    """What waits for the end of the upstream stream: the fragments of tool calls and of a JSON
    answer (verified whole), and the upstream's finish and usage chunks."""

    def __init__(self, shape: StreamShape) -> None:
        self.shape = shape
        self.json = ""
        self.calls: dict[int, dict[str, Any]] = {}
        self.tail: list[dict[str, Any]] = []

    def collect(self, data: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Take the structured fragments and the tail of a chunk; returns the chunk's text
        delta (for the sentence stream) and what of the chunk may go on at once."""
        delta = delta_content(data)
        if self.shape.json_content:
            self.json += delta
            delta = ""
        for fragment in tool_call_deltas(data):
            self._add_call(fragment)
        now, held = split_tail(data)
        if held is not None:
            self.tail.append(held)
        return delta, now

    def _add_call(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index", 0)
        call = self.calls.setdefault(index if isinstance(index, int) else 0, {"function": {}})
        for key in ("id", "type"):
            if isinstance(fragment.get(key), str):
                call[key] = fragment[key]
        function = fragment.get("function")
        if isinstance(function, Mapping):
            own = call["function"]
            if isinstance(function.get("name"), str):
                own["name"] = own.get("name", "") + function["name"]
            if isinstance(function.get("arguments"), str):
                own["arguments"] = own.get("arguments", "") + function["arguments"]

    @property
    def message(self) -> dict[str, Any]:
        """The structured part of the answer as a message (the text content is not in it)."""
        calls = [
            {
                **call,
                "type": call.get("type", "function"),
                "function": {"arguments": "", **call["function"]},
            }
            for _, call in sorted(self.calls.items())
        ]
        return {"content": self.json or None, "tool_calls": calls}

    def texts(self) -> AnswerTexts | None:
        if not self.json and not self.calls:
            return None
        return answer_texts(self.message, json_content=self.shape.json_content)

    def finish(self, template: Mapping[str, Any], outcome: Outcome) -> list[StreamChunk]:
        """The held finish and usage chunks; a block says ``content_filter``."""
        blocked = outcome.decision.enforced_action is Action.BLOCK
        out = [
            StreamChunk.from_data(with_finish(t, CONTENT_FILTER) if blocked else t)
            for t in self.tail
        ]
        if blocked and not any(t.get("choices") for t in self.tail):
            out.insert(0, finish_chunk(template, CONTENT_FILTER))
        return out


async def annotate_stream(
    chunks: AsyncIterator[StreamChunk],
    session: VerificationSession,
    shape: StreamShape,
    finished: Finished,
) -> AsyncIterator[StreamChunk]:
    template: dict[str, Any] = {}
    answer: list[str] = []
    held = _Held(shape)
    worker = _Background(session)
    outcome: Outcome | None = None
    try:
        async for chunk in chunks:
            data = chunk.data
            if data is None:
                yield chunk
                continue
            if not template:
                template = template_of(data)
            delta, now = held.collect(data)
            if now is not None:
                yield chunk if now == data else StreamChunk.from_data(now)
            if delta:
                answer.append(delta)
                worker.push(delta)
            out_chunks, outcome = _annotated(template, session, shape, worker.take())
            for out in out_chunks:
                yield out
            if outcome is not None:
                return
        # The upstream may finish before verification does: a block found now is enforced
        # here all the same (its finish chunk is still held), not only recorded.
        out_chunks, outcome = _annotated(template, session, shape, await worker.drain())
        for out in out_chunks:
            yield out
        if outcome is not None:
            return
        rest, outcome = await session.finish(held.texts())
        if answer or held.json or held.calls:
            outcome = session.delivered(outcome)
        for sentence in rest:
            yield sentence_chunk(template, sentence)
        yield report_chunk(template, outcome.report)
        for out in held.finish(template, outcome):
            yield out
    except ProxyError as exc:
        outcome = outcome or session.stop(failure_reason(exc))
        raise
    finally:
        worker.cancel()
        outcome = outcome or session.stop("the client went away before verification finished")
        finished(outcome, "".join(answer) or held.json)


async def gate_stream(
    chunks: AsyncIterator[StreamChunk],
    session: VerificationSession,
    shape: StreamShape,
    finished: Finished,
) -> AsyncIterator[StreamChunk]:
    template: dict[str, Any] = {}
    gate = _Gate(session)
    held = _Held(shape)
    outcome: Outcome | None = None
    try:
        async for chunk in chunks:
            data = chunk.data
            if data is None:
                yield chunk
                continue
            if not template:
                template = template_of(data)
            delta, now = held.collect(data)
            # Logprobs spell the text: they wait with it (and never leave with withheld text).
            held_now = without_logprobs(now) if now is not None else None
            rest = without_fields(held_now, ("content", "tool_calls")) if held_now else None
            if rest is not None:
                yield StreamChunk.from_data(rest)
            gate.extend(delta, first_logprobs(data))
            for sentence in await session.feed(delta):
                if session.enforced(sentence) is Action.BLOCK:
                    outcome = session.stop()
                    for out in gate.blocked(template, outcome, [sentence], shape):
                        yield out
                    return
                for out in gate.release(template, sentence):
                    yield out
        structured = held.texts()
        rest_sentences, outcome = await session.finish(structured)
        if outcome.decision.enforced_action is Action.BLOCK:
            for out in gate.blocked(template, outcome, rest_sentences, shape):
                yield out
            return
        for sentence in (s for s in rest_sentences if s.path is None):
            for out in gate.release(template, sentence):
                yield out
        tail = gate.remainder(template)
        if tail is not None:
            yield tail
        if structured is not None:
            for out in _release_structured(
                template, session, gate, held, structured, rest_sentences
            ):
                yield out
        yield report_chunk(template, session.client_report(outcome.report, gate.shown))
        for out in held.finish(template, outcome):
            yield out
    except ProxyError as exc:
        outcome = outcome or session.stop(failure_reason(exc))
        raise
    finally:
        outcome = outcome or session.stop("the client went away before verification finished")
        finished(outcome, gate.answer or held.json)


def _release_structured(
    template: Mapping[str, Any],
    session: VerificationSession,
    gate: _Gate,
    held: _Held,
    structured: AnswerTexts,
    sentences: list[SentenceAnnotation],
) -> list[StreamChunk]:
    """Gate mode: the JSON answer and the tool calls, whole and redacted value by value, then
    the annotations of their sentences."""
    located = [s for s in sentences if s.path is not None]
    redacted = [s for s in located if session.enforced(s) is Action.REDACT]
    message = redact_message(held.message, structured, redacted, session.message_for)
    out: list[StreamChunk] = []
    if message.get("content"):
        out.append(content_chunk(template, message["content"]))
    if message.get("tool_calls"):
        out.append(tool_calls_chunk(template, message["tool_calls"]))
    for s in located:
        if s in redacted:
            out.append(sentence_chunk(template, session.withhold(s)))
        else:
            gate.shown.add(s.index)
            out.append(sentence_chunk(template, s))
    return out


class _Gate:
    """The held answer text, how much of it has been released, and which sentences the client
    saw as written (the others are withheld from the annotations too)."""

    def __init__(self, session: VerificationSession) -> None:
        self._session = session
        self.answer = ""
        self._released = 0
        self._tokens = TokenLog()
        self.shown: set[int] = set()

    def extend(self, delta: str, logprobs: object = None) -> None:
        self.answer += delta
        self._tokens.add(logprobs, delta)

    def release(self, template: Mapping[str, Any], s: SentenceAnnotation) -> list[StreamChunk]:
        gap = self.answer[self._released : s.start]  # usually the space between sentences
        if self._session.enforced(s) is Action.REDACT:
            text = gap + (self._session.message_for(s) or "")
            tokens = self._tokens.take(self._released, s.start)
            s = self._session.withhold(s)
        else:
            text = gap + self.answer[s.start : s.end]
            tokens = self._tokens.take(self._released, s.end)
            self.shown.add(s.index)
        self._released = s.end
        out = [with_token_entries(content_chunk(template, text), tokens)] if text else []
        out.append(sentence_chunk(template, s))
        return out

    def blocked(
        self,
        template: Mapping[str, Any],
        outcome: Outcome,
        unreleased: Sequence[SentenceAnnotation],
        shape: StreamShape,
    ) -> list[StreamChunk]:
        """The end of a blocked answer: the sentences never released, withheld; the block
        message after what the client has; the report as the client may see it."""
        out = [sentence_chunk(template, self._session.withhold(s)) for s in unreleased]
        report = self._session.client_report(outcome.report, self.shown)
        separator = "\n\n" if self._released else ""
        return [*out, *_blocked(template, outcome, separator, report, shape)]

    def remainder(self, template: Mapping[str, Any]) -> StreamChunk | None:
        """The text after the last sentence (it holds none), with its logprobs."""
        rest = self.answer[self._released :]
        tokens = self._tokens.take(self._released, len(self.answer))
        self._released = len(self.answer)
        return with_token_entries(content_chunk(template, rest), tokens) if rest else None


class _Background:
    """Feeds deltas to the verifier in one background task, in order, batching what arrives
    while a call is running; finished annotations wait in ``take()``."""

    def __init__(self, session: VerificationSession) -> None:
        self._session = session
        self._pending = ""
        self._ready: list[SentenceAnnotation] = []
        self._task: asyncio.Task[None] | None = None

    def push(self, delta: str) -> None:
        self._pending += delta
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    def take(self) -> list[SentenceAnnotation]:
        ready, self._ready = self._ready, []
        return ready

    async def drain(self) -> list[SentenceAnnotation]:
        if self._task is not None:
            await self._task
        return self.take()

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self) -> None:
        while self._pending:
            text, self._pending = self._pending, ""
            # Await first: ``self._ready.extend(await ...)`` would bind the list that a
            # ``take()`` during the await hands out, and those sentences would be lost.
            done = await self._session.feed(text)
            self._ready.extend(done)


def _annotated(
    template: Mapping[str, Any],
    session: VerificationSession,
    shape: StreamShape,
    sentences: Sequence[SentenceAnnotation],
) -> tuple[list[StreamChunk], Outcome | None]:
    """Annotate mode: the annotation chunks of verified sentences, up to the first the policy
    blocks. The client already has that sentence, so the stream ends there (block message,
    ``content_filter``, the upstream cancelled) and the outcome, returned, tells what
    happened: ``flagged`` with ``delivered_before_block``, never ``blocked``."""
    out: list[StreamChunk] = []
    for sentence in sentences:
        out.append(sentence_chunk(template, sentence))
        if session.enforced(sentence) is Action.BLOCK:
            outcome = session.delivered(session.stop())
            return [*out, *_blocked(template, outcome, "\n\n", outcome.report, shape)], outcome
    return out, None


def _blocked(
    template: Mapping[str, Any],
    outcome: Outcome,
    separator: str,
    report: ResponseReport,
    shape: StreamShape,
) -> list[StreamChunk]:
    """The block message, the client's report and ``finish_reason: "content_filter"``. A JSON
    answer gets no message text: it would break the JSON the client is parsing."""
    message = "" if shape.json_content else (outcome.decision.message or "")
    out = [content_chunk(template, separator + message)] if message else []
    out.append(report_chunk(template, report))
    out.append(finish_chunk(template, CONTENT_FILTER))
    return out
