"""The two stream modes of a policy, as chunk-stream transformers.

``annotate``: every upstream chunk goes to the client at once; sentences are verified in a
background task and their annotation chunks follow right after the next upstream chunk (or at
the end). A sentence the policy blocks stops the stream there, with the block message and
``finish_reason: "content_filter"``; the upstream is cancelled when the generator returns.
Text already streamed cannot be taken back: in this mode ``redact`` is recorded, not enforced.

``gate``: content is held and each sentence is released only once it is verified and allowed;
a redacted sentence is replaced by the policy's message, a blocked one never reaches the
client. Role, tool-call and other non-content chunks pass at once; the upstream's finish and
usage chunks wait until the text is out.

Both end with one report chunk, then the chat service writes ``data: [DONE]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from proxy.errors import ProxyError
from proxy.streaming import StreamChunk
from proxy.verification.chunks import (
    content_chunk,
    delta_content,
    finish_chunk,
    finish_reason,
    report_chunk,
    sentence_chunk,
    template_of,
    without_content,
)
from proxy.verification.session import Outcome, VerificationSession
from verifiers import Action, ResponseReport, SentenceAnnotation

CONTENT_FILTER = "content_filter"
Finished = Callable[[Outcome, str], None]  # called once with the outcome and the full answer


def failure_reason(exc: ProxyError) -> str:
    """The audit reason for an answer that failed: status and code only, never upstream text."""
    return f"the answer failed (HTTP {exc.status}, {exc.code or exc.type}) and was not verified"


async def annotate_stream(
    chunks: AsyncIterator[StreamChunk], session: VerificationSession, finished: Finished
) -> AsyncIterator[StreamChunk]:
    template: dict[str, Any] = {}
    answer: list[str] = []
    worker = _Background(session)
    outcome: Outcome | None = None
    try:
        async for chunk in chunks:
            data = chunk.data
            if not template and data:
                template = template_of(data)
            yield chunk
            delta = delta_content(data)
            if delta:
                answer.append(delta)
                worker.push(delta)
            for sentence in worker.take():
                yield sentence_chunk(template, sentence)
                if _enforced(session, sentence) is Action.BLOCK:
                    outcome = session.stop()
                    for out in _blocked(template, outcome, "\n\n", outcome.report):
                        yield out
                    return
        for sentence in await worker.drain():
            yield sentence_chunk(template, sentence)
        rest, outcome = await session.finish()
        for sentence in rest:
            yield sentence_chunk(template, sentence)
        yield report_chunk(template, outcome.report)
    except ProxyError as exc:
        outcome = outcome or session.stop(failure_reason(exc))
        raise
    finally:
        worker.cancel()
        outcome = outcome or session.stop("the client went away before verification finished")
        finished(outcome, "".join(answer))


async def gate_stream(
    chunks: AsyncIterator[StreamChunk], session: VerificationSession, finished: Finished
) -> AsyncIterator[StreamChunk]:
    template: dict[str, Any] = {}
    gate = _Gate(session)
    held: list[StreamChunk] = []  # the upstream's finish and usage chunks
    outcome: Outcome | None = None
    try:
        async for chunk in chunks:
            data = chunk.data
            delta = delta_content(data)
            if data is None or (not delta and not _is_tail(data)):
                yield chunk
                continue
            if not template:
                template = template_of(data)
            rest = without_content(data)
            if rest is not None:
                if _is_tail(data):
                    held.append(StreamChunk.from_data(rest))
                else:
                    yield StreamChunk.from_data(rest)
            gate.extend(delta)
            for sentence in await session.feed(delta):
                if _enforced(session, sentence) is Action.BLOCK:
                    yield sentence_chunk(template, session.withhold(sentence))
                    outcome = session.stop()
                    report = session.client_report(outcome.report, gate.shown)
                    for out in _blocked(template, outcome, gate.separator(), report):
                        yield out
                    return
                for out in gate.release(template, sentence):
                    yield out
        rest_sentences, outcome = await session.finish()
        if outcome.decision.enforced_action is Action.BLOCK:
            for sentence in rest_sentences:
                yield sentence_chunk(template, session.withhold(sentence))
            report = session.client_report(outcome.report, gate.shown)
            for out in _blocked(template, outcome, gate.separator(), report):
                yield out
            return
        for sentence in rest_sentences:
            for out in gate.release(template, sentence):
                yield out
        tail = gate.remainder()
        if tail:
            yield content_chunk(template, tail)
        for out in held:
            yield out
        yield report_chunk(template, session.client_report(outcome.report, gate.shown))
    except ProxyError as exc:
        outcome = outcome or session.stop(failure_reason(exc))
        raise
    finally:
        outcome = outcome or session.stop("the client went away before verification finished")
        finished(outcome, gate.answer)


class _Gate:
    """The held answer text, how much of it has been released, and which sentences the client
    saw as written (the others are withheld from the annotations too)."""

    def __init__(self, session: VerificationSession) -> None:
        self._session = session
        self.answer = ""
        self._released = 0
        self.shown: set[int] = set()

    def extend(self, delta: str) -> None:
        self.answer += delta

    def release(self, template: Mapping[str, Any], s: SentenceAnnotation) -> list[StreamChunk]:
        gap = self.answer[self._released : s.start]  # usually the space between sentences
        if _enforced(self._session, s) is Action.REDACT:
            text = gap + (self._session.message_for(s) or "")
            s = self._session.withhold(s)
        else:
            text = gap + self.answer[s.start : s.end]
            self.shown.add(s.index)
        self._released = s.end
        out = [content_chunk(template, text)] if text else []
        out.append(sentence_chunk(template, s))
        return out

    def separator(self) -> str:
        return "\n\n" if self._released else ""

    def remainder(self) -> str:
        rest = self.answer[self._released :]
        self._released = len(self.answer)
        return rest


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


def _enforced(session: VerificationSession, sentence: SentenceAnnotation) -> Action:
    return Action.ANNOTATE if session.policy.shadow else sentence.action


def _is_tail(data: Mapping[str, Any]) -> bool:
    """The upstream's finish chunk or its usage-only chunk (no choices)."""
    return finish_reason(data) is not None or not data.get("choices")


def _blocked(
    template: Mapping[str, Any], outcome: Outcome, separator: str, report: ResponseReport
) -> list[StreamChunk]:
    """The block message, ``finish_reason: "content_filter"`` and the client's report."""
    message = outcome.decision.message or ""
    out = [content_chunk(template, separator + message)] if message else []
    out.append(finish_chunk(template, CONTENT_FILTER))
    out.append(report_chunk(template, report))
    return out
