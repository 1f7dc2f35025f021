"""The two stream modes of a policy, as chunk-stream transformers.

``annotate``: every upstream chunk goes to the client at once; sentences are verified in a
background task and their annotation chunks follow right after the next upstream chunk (or at
the end). A sentence the policy blocks stops the stream at the first point the block is known,
even when the upstream has already finished (its finish chunk is held until verification
ends): the block message and ``finish_reason: "content_filter"`` follow, and the upstream is
cancelled. The blocked sentence itself was already delivered, and with a fast upstream so may
be more: the report therefore says ``flagged`` with ``delivered_before_block: true``, never
``blocked``. Text already streamed cannot be taken back: ``redact`` is recorded, not enforced.
Annotate holds no more than gate mode does: past ``MAX_BACKLOG_CHARS`` of text waiting for the
verifier, it reads the upstream only as fast as the verifier goes; the stream's total time and
size (``limits.stream_seconds``, ``max_stream_bytes``) and each event's size are bounded below
it, in both modes. An answer that stops early (a limit, an upstream failure, the client gone)
is reported unverified, and never ``blocked`` once its text reached the client.

``gate``: nothing of the upstream's chunks is forwarded. Choice 0 is read strictly
(:func:`~proxy.verification.shapes.streamed_choices`) and every chunk the client gets is
rendered (:mod:`proxy.verification.render`): the role at once; each sentence only once it is
verified and allowed (a redacted sentence is replaced by the policy's message, a blocked one
never reaches the client); fields understood but not verified (a refusal, reasoning, a legacy
function call) at the end, unless the answer is withheld; the finish reason and usage counts
last. An entry whose index is not an integer, a field the proxy does not understand, or a
shape it cannot read is never sent, and makes the answer ``unverified``: the policy's
``on_verifier_error`` decides (``closed``: blocked).

Tool calls and a JSON answer (``response_format``) cannot be judged until they are complete:
their fragments are collected, and their string values are verified when the upstream is done
(:mod:`proxy.verification.answers`). In gate mode they are held until then and released whole,
redacted value by value (one content chunk of valid JSON, one chunk of complete tool calls); a
block releases none of them, and a JSON answer gets no block text appended (it would break the
JSON a client parses as it streams): the policy's message comes as the answer's ``refusal``, with
``finish_reason: "stop"``, as OpenAI declines a structured answer.

Order, in both modes, as clients expect it: content, sentence annotations, the report, then the
upstream's ``finish_reason`` chunk and its usage chunk (held until verification ends: many
clients stop reading at ``finish_reason``, and the SDK's stream helper keeps the usage of the
last chunk); the chat service writes ``data: [DONE]`` last.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from proxy.errors import ProxyError
from proxy.settings.retrieval import QuoteDisplay
from proxy.streaming import StreamChunk
from proxy.verification import render
from proxy.verification.annotations import StreamCitations
from proxy.verification.answers import (
    AnswerTexts,
    Unverifiable,
    UnverifiedReason,
    answer_texts,
    redact_message,
)
from proxy.verification.chunks import (
    KEEP_ALIVE,
    block_finish_reason,
    block_message_chunk,
    content_chunk,
    delta_chunk,
    finish_chunk,
    report_chunk,
    role_chunk,
    sentence_chunk,
    split_tail,
    template_of,
    tool_calls_chunk,
    usage_chunk,
    with_content,
    with_finish,
)
from proxy.verification.logprobs import TokenLog, with_token_entries
from proxy.verification.quotes import StreamQuotes
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.shapes import CONTENT_FILTER, streamed_choices
from verifiers import Action, ResponseReport, SentenceAnnotation, StrippedQuote

CLIENT_GONE = "the client went away before verification finished"
Finished = Callable[[Outcome, str], None]  # called once with the outcome and the full answer
# Annotate mode: text that may wait for the verifier before the upstream is read on.
MAX_BACKLOG_CHARS = 32_768


@dataclass(frozen=True, slots=True)
class StreamShape:
    """What the request asked for: ``json_content`` -- the answer's content is JSON;
    ``structured`` -- a structured answer (JSON or a forced tool call), whose block is declined
    with a refusal; and what the client reads of a quoted citation (``quotes``,
    :mod:`proxy.verification.quotes`)."""

    json_content: bool = False
    structured: bool = False
    quotes: QuoteDisplay = QuoteDisplay.STRIP


@dataclass(frozen=True, slots=True)
class _Text:
    """Choice 0's text in one chunk, as the client reads it, and its token log-probabilities;
    ``spelled``: False when the stripper held or rewrote any of it (the tokens then spell
    words the client does not read as written, and go nowhere)."""

    text: str
    logprobs: object = None
    spelled: bool = True


def failure_reason(exc: ProxyError) -> str:
    """The audit reason for an answer that failed: status and code only, never upstream text."""
    return f"the answer failed (HTTP {exc.status}, {exc.code or exc.type}) and was not verified"


class _Held:
    """What is read of choice 0 and waits for the end of the upstream stream: the fragments of
    tool calls and of a JSON answer (verified whole), the fields understood but not verified,
    what could not be read, and the upstream's finish and usage."""

    def __init__(self, shape: StreamShape) -> None:
        self.shape = shape
        self.json = ""
        self.calls: dict[int, dict[str, Any]] = {}
        self.unread: dict[str, list[Any]] = {}
        self.reasons: list[str] = []
        self.role = False
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.tail: list[dict[str, Any]] = []  # annotate mode: the upstream's own closing chunks
        self._stripper = StreamQuotes(shape.quotes)
        self._quotes: list[StrippedQuote] = []  # taken out, not yet handed to the verifier

    def read(self, data: Mapping[str, Any]) -> list[_Text]:
        """Read a chunk strictly: the text deltas of choice 0 (for the sentence stream), each
        with its logprobs, quotes taken out. Every other entry here has an index that is not
        an integer (those with one were taken out by :mod:`proxy.verification.choices`): it is
        not read."""
        out: list[_Text] = []
        for choice in streamed_choices(data):
            self.reasons.extend(choice.reasons)
            if choice.index != 0:
                continue
            self.role = self.role or choice.role
            text = choice.text
            if self.shape.json_content:
                self.json += text
                text = ""
            for fragment in choice.tool_calls:
                self._add_call(fragment)
            for name, value in choice.unread:
                self.unread.setdefault(name, []).append(value)
            self.finish_reason = choice.finish or self.finish_reason
            out.append(self._visible(text, choice.logprobs))
        self.usage = render.usage(data.get("usage")) or self.usage
        return out

    def _visible(self, text: str, logprobs: object) -> _Text:
        if not text:
            return _Text(text, logprobs)
        stripped = self._stripper.feed(text)
        self._quotes.extend(stripped.quotes)
        if stripped.text == text:
            return _Text(text, logprobs)
        return _Text(stripped.text, None, spelled=False)

    def flush(self) -> str:
        """The end of choice 0's text: what the quote stripper still held, released."""
        rest = self._stripper.flush()
        self._quotes.extend(rest.quotes)
        return rest.text

    def take_quotes(self) -> tuple[StrippedQuote, ...]:
        """The quotes taken out of the text read since the last call (for the verifier)."""
        taken, self._quotes = tuple(self._quotes), []
        return taken

    def collect(self, data: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Annotate mode: read the chunk and hold its tail; returns the chunk's text delta and
        what of the chunk goes on at once (annotate delivers as it streams), its text as the
        client reads it."""
        texts = self.read(data)
        delta = "".join(t.text for t in texts)
        now, held = split_tail(data)
        if held is not None:
            self.tail.append(held)
        if now is not None and not all(t.spelled for t in texts):
            now = with_content(now, delta)
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
        gaps = tuple(
            Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, r) for r in dict.fromkeys(self.reasons)
        )
        if not self.json and not self.calls:
            return AnswerTexts(unverifiable=gaps) if gaps else None
        texts = answer_texts(self.message, json_content=self.shape.json_content)
        return replace(texts, unverifiable=(*texts.unverifiable, *gaps))

    def unread_delta(self) -> dict[str, Any]:
        """The fields understood but not verified, whole (gate mode sends them only when the
        answer is not withheld)."""
        joined: dict[str, Any] = {}
        for name in ("refusal", "reasoning_content"):
            values = self.unread.get(name, [])
            joined[name] = "".join(v for v in values if isinstance(v, str))
        call = {"name": "", "arguments": ""}
        for fragment in self.unread.get("function_call", []):
            for key in call:
                if isinstance(fragment, Mapping) and isinstance(fragment.get(key), str):
                    call[key] += fragment[key]
        if any(call.values()):
            joined["function_call"] = call
        return render.unread_fields(joined)

    def finish(self, template: Mapping[str, Any], outcome: Outcome) -> list[StreamChunk]:
        """Annotate mode: the held finish and usage chunks; a block says ``content_filter``."""
        blocked = outcome.decision.enforced_action is Action.BLOCK
        out = [
            StreamChunk.from_data(with_finish(t, CONTENT_FILTER) if blocked else t)
            for t in self.tail
        ]
        if blocked and not any(t.get("choices") for t in self.tail):
            out.insert(0, finish_chunk(template, CONTENT_FILTER))
        return out

    def rendered_finish(self, template: Mapping[str, Any]) -> list[StreamChunk]:
        """Gate mode: the finish chunk and the usage chunk, rendered."""
        out = [finish_chunk(template, render.finish_reason(self.finish_reason))]
        if self.usage is not None:
            out.append(usage_chunk(template, self.usage))
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
    citing = StreamCitations(session.links)
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
                worker.push(delta, held.take_quotes())
                if worker.backlog > MAX_BACKLOG_CHARS:
                    await worker.caught_up()
            out_chunks, outcome = _annotated(template, session, held, citing, worker.take())
            for out in out_chunks:
                yield out
            if outcome is not None:
                return
        if rest_text := held.flush():  # a bracket that never closed
            answer.append(rest_text)
            worker.push(rest_text, held.take_quotes())
            yield content_chunk(template, rest_text)
        # The upstream may finish before verification does: a block found now is enforced
        # here all the same (its finish chunk is still held), not only recorded.
        out_chunks, outcome = _annotated(template, session, held, citing, await worker.drain())
        for out in out_chunks:
            yield out
        if outcome is not None:
            return
        rest, outcome = await session.finish(held.texts())
        if answer or held.json or held.calls:
            outcome = session.delivered(outcome)
        for sentence in rest:
            citing.add(sentence, sentence.start)
            yield sentence_chunk(template, sentence)
        yield report_chunk(template, outcome.report, citing.chat())
        for out in held.finish(template, outcome):
            yield out
    except ProxyError as exc:
        outcome = outcome or _stopped(session, failure_reason(exc), held, answer)
        raise
    finally:
        worker.cancel()
        outcome = outcome or _stopped(session, CLIENT_GONE, held, answer)
        finished(outcome, "".join(answer) or held.json)


def _stopped(session: VerificationSession, reason: str, held: _Held, answer: list[str]) -> Outcome:
    """Annotate mode: an answer that stopped early, its rest unverified; what the client
    already has is never reported ``blocked``."""
    outcome = session.stop(reason)
    return session.delivered(outcome) if answer or held.json or held.calls else outcome


async def gate_stream(
    chunks: AsyncIterator[StreamChunk],
    session: VerificationSession,
    shape: StreamShape,
    finished: Finished,
) -> AsyncIterator[StreamChunk]:
    """Nothing of the upstream's chunks is forwarded: every chunk is rendered from what was
    read strictly and verified (the allowlist of :mod:`proxy.verification.render`)."""
    template: dict[str, Any] = {}
    gate = _Gate(session)
    held = _Held(shape)
    outcome: Outcome | None = None
    try:
        async for chunk in chunks:
            data = chunk.data
            if data is None:
                yield KEEP_ALIVE  # an upstream comment: its words are not the proxy's to send
                continue
            if not template:
                template = template_of(data)
            had_role = held.role
            texts = held.read(data)
            if held.role and not had_role:
                yield role_chunk(template)
            for text in texts:
                gate.extend(text)
            delta = "".join(t.text for t in texts)
            out_chunks, outcome = await gate.feed(template, delta, held)
            for out in out_chunks:
                yield out
            if outcome is not None:
                return
        rest_text = held.flush()  # a bracket that never closed
        gate.extend(_Text(rest_text, spelled=False))
        out_chunks, outcome = await gate.feed(template, rest_text, held)
        for out in out_chunks:
            yield out
        if outcome is not None:
            return
        structured = held.texts()
        rest_sentences, outcome = await session.finish(structured)
        if outcome.decision.enforced_action is Action.BLOCK:
            for out in gate.blocked(template, outcome, rest_sentences, held):
                yield out
            return
        for sentence in (s for s in rest_sentences if s.path is None):
            for out in gate.release(template, sentence):
                yield out
        tail = gate.remainder(template)
        if tail is not None:
            yield tail
        if structured is not None and (held.json or held.calls):
            for out in _release_structured(
                template, session, gate, held, structured, rest_sentences
            ):
                yield out
        if unread := held.unread_delta():
            yield delta_chunk(template, unread)
        report = session.client_report(outcome.report, gate.shown)
        yield report_chunk(template, report, gate.citations())
        for out in held.rendered_finish(template):
            yield out
    except ProxyError as exc:
        outcome = outcome or session.stop(failure_reason(exc))
        raise
    finally:
        outcome = outcome or session.stop(CLIENT_GONE)
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
    for s in located:  # inside JSON: no url_citation (its offsets are not into the content)
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
        self._shift = 0  # the client's text is this much longer than the answer released
        self._tokens = TokenLog()
        self._citing = StreamCitations(session.links)  # of the sentences shown as written
        self.shown: set[int] = set()

    def extend(self, text: _Text) -> None:
        self.answer += text.text
        if text.spelled:
            self._tokens.add(text.logprobs, text.text)
        else:
            self._tokens.skip(text.text)

    async def feed(
        self, template: Mapping[str, Any], delta: str, held: _Held
    ) -> tuple[list[StreamChunk], Outcome | None]:
        """Verify ``delta`` (with the quotes taken out of it) and release the sentences it
        completed; a block ends the answer there, and its outcome is returned."""
        out: list[StreamChunk] = []
        for sentence in await self._session.feed(delta, held.take_quotes()):
            if self._session.enforced(sentence) is Action.BLOCK:
                outcome = self._session.stop()
                return [*out, *self.blocked(template, outcome, [sentence], held)], outcome
            out += self.release(template, sentence)
        return out, None

    def release(self, template: Mapping[str, Any], s: SentenceAnnotation) -> list[StreamChunk]:
        gap = self.answer[self._released : s.start]  # usually the space between sentences
        offset = s.start + self._shift  # where the sentence starts in the client's text
        if self._session.enforced(s) is Action.REDACT:
            text = gap + (self._session.message_for(s) or "")
            tokens = self._tokens.release(s.start)
            self._tokens.withhold(s.end)
            s = self._session.withhold(s)
        else:
            text = gap + self.answer[s.start : s.end]
            tokens = self._tokens.release(s.end)
            self.shown.add(s.index)
            self._citing.add(s, offset)
        self._shift += len(text) - (s.end - self._released)
        self._released = s.end
        out = [with_token_entries(content_chunk(template, text), tokens)] if text else []
        out.append(sentence_chunk(template, s))
        return out

    def citations(self) -> list[dict[str, Any]]:
        return self._citing.chat()

    def blocked(
        self,
        template: Mapping[str, Any],
        outcome: Outcome,
        unreleased: Sequence[SentenceAnnotation],
        held: _Held,
    ) -> list[StreamChunk]:
        """The end of a blocked answer: the sentences never released, withheld; the block
        message after what the client has; the report as the client may see it."""
        out = [sentence_chunk(template, self._session.withhold(s)) for s in unreleased]
        report = self._session.client_report(outcome.report, self.shown)
        separator = "\n\n" if self._released else ""
        return [*out, *_blocked(template, outcome, separator, report, held, self.citations())]

    def remainder(self, template: Mapping[str, Any]) -> StreamChunk | None:
        """The text after the last sentence (it holds none), with its logprobs."""
        rest = self.answer[self._released :]
        tokens = self._tokens.release(len(self.answer))
        self._released = len(self.answer)
        return with_token_entries(content_chunk(template, rest), tokens) if rest else None


class _Background:
    """Feeds deltas to the verifier in one background task, in order, batching what arrives
    while a call is running; finished annotations wait in ``take()``."""

    def __init__(self, session: VerificationSession) -> None:
        self._session = session
        self._pending = ""
        self._quotes: list[StrippedQuote] = []
        self._ready: list[SentenceAnnotation] = []
        self._task: asyncio.Task[None] | None = None

    def push(self, delta: str, quotes: Sequence[StrippedQuote] = ()) -> None:
        self._pending += delta
        self._quotes.extend(quotes)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    def take(self) -> list[SentenceAnnotation]:
        ready, self._ready = self._ready, []
        return ready

    @property
    def backlog(self) -> int:
        """Characters pushed and not yet handed to the verifier."""
        return len(self._pending)

    async def caught_up(self) -> None:
        """Wait until the verifier has taken everything pushed (annotations stay in take())."""
        if self._task is not None:
            await self._task

    async def drain(self) -> list[SentenceAnnotation]:
        await self.caught_up()
        return self.take()

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self) -> None:
        while self._pending:
            text, self._pending = self._pending, ""
            quotes, self._quotes = tuple(self._quotes), []
            # Await first: ``self._ready.extend(await ...)`` would bind the list that a
            # ``take()`` during the await hands out, and those sentences would be lost.
            done = await self._session.feed(text, quotes)
            self._ready.extend(done)


def _annotated(
    template: Mapping[str, Any],
    session: VerificationSession,
    held: _Held,
    citing: StreamCitations,
    sentences: Sequence[SentenceAnnotation],
) -> tuple[list[StreamChunk], Outcome | None]:
    """Annotate mode: the annotation chunks of verified sentences, up to the first the policy
    blocks. The client already has that sentence, so the stream ends there (block message,
    ``content_filter``, the upstream cancelled) and the outcome, returned, tells what
    happened: ``flagged`` with ``delivered_before_block``, never ``blocked``."""
    out: list[StreamChunk] = []
    for sentence in sentences:
        # The client's text is the answer as verified (annotate mode changes none of it).
        citing.add(sentence, sentence.start)
        out.append(sentence_chunk(template, sentence))
        if session.enforced(sentence) is Action.BLOCK:
            outcome = session.delivered(session.stop())
            blocked = _blocked(template, outcome, "\n\n", outcome.report, held, citing.chat())
            return [*out, *blocked], outcome
    return out, None


def _blocked(
    template: Mapping[str, Any],
    outcome: Outcome,
    separator: str,
    report: ResponseReport,
    held: _Held,
    annotations: Sequence[Mapping[str, Any]],
) -> list[StreamChunk]:
    """The block message, the client's report (with the citations of the text shown),
    ``finish_reason: "content_filter"`` and the
    upstream's usage counts when it sent them (a block found before its end cancels it: no
    counts, none sent). A structured answer gets no message text (it would break the object the
    client is parsing): the message is its ``refusal`` and it finishes ``stop``, as OpenAI
    declines a structured answer (:class:`~proxy.verification.chunks.BlockMessageChunk`)."""
    message = outcome.decision.message or ""
    structured = held.shape.structured
    out: list[StreamChunk] = []
    if message:
        out.append(block_message_chunk(template, separator, message, structured=structured))
    out.append(report_chunk(template, report, annotations))
    reason = block_finish_reason(structured=structured, refused=bool(message))
    out.append(finish_chunk(template, reason))
    if held.usage is not None:
        out.append(usage_chunk(template, held.usage))
    return out
