"""Stream mode ``annotate``: every upstream chunk goes to the client at once; sentences are
verified in a background task and their annotations follow right after the next upstream chunk
(or at the end).

A sentence the policy blocks stops the stream at the first point the block is known, even when
the upstream has already finished (its finish chunk is held until verification ends): the block
message and ``finish_reason: "content_filter"`` follow, and the upstream is cancelled. The
blocked sentence itself was already delivered, and with a fast upstream so may be more: the
report therefore says ``flagged`` with ``delivered_before_block: true``, never ``blocked``.
Text already streamed cannot be taken back: ``redact`` is recorded, not enforced. Annotate
holds no more than gate mode does: past ``MAX_BACKLOG_CHARS`` of text waiting for the verifier,
it reads the upstream only as fast as the verifier goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from policies import Action
from proxy.streaming import StreamChunk
from proxy.verification.annotations import StreamCitations
from proxy.verification.chunks import content_of, template_of
from proxy.verification.events import Content, Forward, Opened, Report, Sentence, StreamEvent
from proxy.verification.held import Held, StreamShape
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.stream_end import blocked_end
from verifiers import StrippedQuote

# Text that may wait for the verifier before the upstream is read on.
MAX_BACKLOG_CHARS = 32_768


class Annotate:
    """One answer in annotate mode (a :class:`~proxy.verification.stream_end.StreamMode`)."""

    def __init__(self, session: VerificationSession, shape: StreamShape) -> None:
        self._session = session
        self._held = Held(shape)
        self._worker = Background(session)
        self._citing = StreamCitations(session.links)
        self._sent: list[str] = []  # the text the client has
        self.outcome: Outcome | None = None

    @property
    def answer(self) -> str:
        return "".join(self._sent) or self._held.json

    async def events(self, chunks: AsyncIterator[StreamChunk]) -> AsyncIterator[StreamEvent]:
        held, worker = self._held, self._worker
        opened = False
        async for chunk in chunks:
            data = chunk.data
            if data is None:
                yield Forward(chunk)
                continue
            if not opened:
                opened = True
                yield Opened(template_of(data))
            if self._session.error is not None and (kept := held.keep_quotes()):
                self._sent.append(kept)
                yield Content(kept)
            delta, now = held.collect(data)
            if now is not None and now == data:
                yield Forward(chunk)
            elif now is not None:
                # Rewritten (quotes stripped, the finish held): its text, for a dialect's events.
                yield Forward(StreamChunk.from_data(now), content_of(now) or "")
            if delta:
                self._sent.append(delta)
                worker.push(delta, held.take_quotes())
                if worker.backlog > MAX_BACKLOG_CHARS:
                    await worker.caught_up()
            for event in self._annotated(worker.take()):
                yield event
            if self.outcome is not None:
                return
        if rest := held.flush():  # a bracket that never closed
            self._sent.append(rest)
            worker.push(rest, held.take_quotes())
            yield Content(rest)
        # The upstream may finish before verification does: a block found now is enforced
        # here all the same (its finish chunk is still held), not only recorded.
        for event in self._annotated(await worker.drain()):
            yield event
        if self.outcome is not None:
            return
        sentences, outcome = await self._session.finish(held.texts())
        self.outcome = outcome = self._delivered(outcome)
        for sentence in sentences:
            self._citing.add(sentence.annotation, sentence.annotation.start)
            yield sentence
        yield Report(outcome, outcome.report, self._citing.cited())
        for event in held.held_end(blocked=outcome.decision.enforced_action is Action.BLOCK):
            yield event

    def stopped(self, reason: str) -> Outcome:
        """The rest of the answer unverified; what the client already has is never reported
        ``blocked``."""
        return self._delivered(self._session.stop(reason))

    def close(self) -> None:
        self._worker.cancel()

    def _delivered(self, outcome: Outcome) -> Outcome:
        held = self._held
        sent = self._sent or held.json or held.calls
        return self._session.delivered(outcome) if sent else outcome

    def _annotated(self, sentences: Sequence[Sentence]) -> list[StreamEvent]:
        """The verified sentences, up to the first the policy blocks. The client already has
        that sentence, so the stream ends there (block message, ``content_filter``, the upstream
        cancelled) and the outcome tells what happened: ``flagged`` with
        ``delivered_before_block``, never ``blocked``."""
        out: list[StreamEvent] = []
        for sentence in sentences:
            # The client's text is the answer as verified (annotate mode changes none of it).
            self._citing.add(sentence.annotation, sentence.annotation.start)
            out.append(sentence)
            if sentence.decision.enforced_action is Action.BLOCK:
                self.outcome = outcome = self._session.delivered(self._session.stop())
                citations = self._citing.cited()
                return [*out, *blocked_end(outcome, "\n\n", outcome.report, self._held, citations)]
        return out


class Background:
    """Feeds deltas to the verifier in one background task, in order, batching what arrives
    while a call is running; finished sentences wait in ``take()``."""

    def __init__(self, session: VerificationSession) -> None:
        self._session = session
        self._pending = ""
        self._quotes: list[StrippedQuote] = []
        self._ready: list[Sentence] = []
        self._task: asyncio.Task[None] | None = None

    def push(self, delta: str, quotes: Sequence[StrippedQuote] = ()) -> None:
        self._pending += delta
        self._quotes.extend(quotes)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    def take(self) -> list[Sentence]:
        ready, self._ready = self._ready, []
        return ready

    @property
    def backlog(self) -> int:
        """Characters pushed and not yet handed to the verifier."""
        return len(self._pending)

    async def caught_up(self) -> None:
        """Wait until the verifier has taken everything pushed (sentences stay in take())."""
        if self._task is not None:
            await self._task

    async def drain(self) -> list[Sentence]:
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
