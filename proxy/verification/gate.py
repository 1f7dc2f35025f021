"""Stream mode ``gate``: nothing of the upstream's chunks is forwarded; every event is made from
what was read strictly and verified (the allowlist of :mod:`proxy.verification.render`).

The role goes at once; each sentence only once it is verified and allowed (a redacted sentence
is replaced by the policy's message, a blocked one never reaches the client); fields understood
but not verified (a refusal, reasoning, a legacy function call) at the end, unless the answer is
withheld; the finish reason and usage counts last. Tool calls and a JSON answer are held until
the upstream is done and released whole, redacted value by value; a block releases none of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from policies import Action
from proxy.streaming import StreamChunk
from proxy.verification.annotations import StreamCitations
from proxy.verification.answers import AnswerTexts, redact_message
from proxy.verification.chunks import template_of
from proxy.verification.events import (
    Content,
    KeepAlive,
    Opened,
    Report,
    Role,
    Sentence,
    StreamEvent,
    ToolCalls,
)
from proxy.verification.held import Held, StreamShape, Text
from proxy.verification.logprobs import TokenLog
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.stream_end import blocked_end
from verifiers import SentenceAnnotation


class Gate:
    """One answer in gate mode (a :class:`~proxy.verification.stream_end.StreamMode`): the held
    answer text, how much of it has been released, and which sentences the client saw as
    written (the others are withheld from the annotations too)."""

    def __init__(self, session: VerificationSession, shape: StreamShape) -> None:
        self._session = session
        self._held = Held(shape)
        self._text = ""  # the answer as read (quotes taken out)
        self._released = 0
        self._shift = 0  # the client's text is this much longer than the answer released
        self._tokens = TokenLog()
        self._citing = StreamCitations(session.links)  # of the sentences shown as written
        self._shown: set[int] = set()
        self.outcome: Outcome | None = None

    @property
    def answer(self) -> str:
        return self._text or self._held.json

    def stopped(self, reason: str) -> Outcome:
        return self._session.stop(reason)

    def close(self) -> None:
        pass  # nothing runs in the background

    async def events(self, chunks: AsyncIterator[StreamChunk]) -> AsyncIterator[StreamEvent]:
        held = self._held
        opened = False
        async for chunk in chunks:
            data = chunk.data
            if data is None:
                yield KeepAlive()
                continue
            if not opened:
                opened = True
                yield Opened(template_of(data))
            had_role = held.role
            texts = held.read(data)
            if held.role and not had_role:
                yield Role()
            for text in texts:
                self._extend(text)
            for event in await self._feed("".join(t.text for t in texts)):
                yield event
            if self.outcome is not None:
                return
        rest = held.flush()  # a bracket that never closed
        self._extend(Text(rest, spelled=False))
        for event in await self._feed(rest):
            yield event
        if self.outcome is not None:
            return
        for event in await self._finish():
            yield event

    async def _finish(self) -> list[StreamEvent]:
        """The upstream is done: the rest of the text, the structured parts, the report."""
        held = self._held
        structured = held.texts()
        sentences, outcome = await self._session.finish(structured)
        self.outcome = outcome
        if outcome.decision.enforced_action is Action.BLOCK:
            return self._blocked(outcome, sentences)
        out: list[StreamEvent] = []
        for sentence in (s for s in sentences if s.annotation.path is None):
            out += self._release(sentence)
        out += self._remainder()
        if structured is not None and (held.json or held.calls):
            out += self._release_structured(structured, sentences)
        if unread := held.unread():
            out.append(unread)
        out.append(Report(outcome, outcome.shown_as(self._shown), self._citing.cited()))
        return [*out, *held.end()]

    def _extend(self, text: Text) -> None:
        self._text += text.text
        if text.spelled:
            self._tokens.add(text.logprobs, text.text)
        else:
            self._tokens.skip(text.text)

    async def _feed(self, delta: str) -> list[StreamEvent]:
        """Verify ``delta`` (with the quotes taken out of it) and release the sentences it
        completed; a block ends the answer there."""
        out: list[StreamEvent] = []
        for sentence in await self._session.feed(delta, self._held.take_quotes()):
            if sentence.decision.enforced_action is Action.BLOCK:
                self.outcome = self._session.stop()
                return [*out, *self._blocked(self.outcome, [sentence])]
            out += self._release(sentence)
        return out

    def _release(self, sentence: Sentence) -> list[StreamEvent]:
        s = sentence.annotation
        gap = self._text[self._released : s.start]  # usually the space between sentences
        offset = s.start + self._shift  # where the sentence starts in the client's text
        if sentence.decision.enforced_action is Action.REDACT:
            text = gap + (sentence.decision.message or "")
            tokens = self._tokens.release(s.start)
            self._tokens.withhold(s.end)
            sentence = sentence.withheld()
        else:
            text = gap + self._text[s.start : s.end]
            tokens = self._tokens.release(s.end)
            self._shown.add(s.index)
            self._citing.add(s, offset)
        self._shift += len(text) - (s.end - self._released)
        self._released = s.end
        out: list[StreamEvent] = [Content(text, tokens)] if text else []
        out.append(sentence)
        return out

    def _remainder(self) -> list[StreamEvent]:
        """The text after the last sentence verified, with its logprobs. When verification
        stopped before it (the policy let it through unverified), no annotation will carry its
        quotes, so it goes with them as the model wrote them (and without logprobs, which
        spelled the stripped text)."""
        rest = self._text[self._released :]
        tokens: Sequence[Mapping[str, Any]] | None = self._tokens.release(len(self._text))
        if self._session.error is not None:
            written = self._held.as_written(rest, self._released)
            if written != rest:
                rest, tokens = written, None
        self._released = len(self._text)
        return [Content(rest, tokens)] if rest else []

    def _release_structured(
        self, structured: AnswerTexts, sentences: Sequence[Sentence]
    ) -> list[StreamEvent]:
        """The JSON answer and the tool calls, whole and redacted value by value, then the
        sentences inside them."""
        located = [s for s in sentences if s.annotation.path is not None]
        redacted = {
            s.annotation.index: s for s in located if s.decision.enforced_action is Action.REDACT
        }

        def message_for(s: SentenceAnnotation) -> str | None:
            return redacted[s.index].decision.message

        withheld = [s.annotation for s in redacted.values()]
        message = redact_message(self._held.message, structured, withheld, message_for)
        out: list[StreamEvent] = []
        if message.get("content"):
            out.append(Content(message["content"]))
        if message.get("tool_calls"):
            out.append(ToolCalls(message["tool_calls"]))
        for s in located:  # inside JSON: no url_citation (its offsets are not into the content)
            if s.annotation.index in redacted:
                out.append(s.withheld())
            else:
                self._shown.add(s.annotation.index)
                out.append(s)
        return out

    def _blocked(self, outcome: Outcome, unreleased: Sequence[Sentence]) -> list[StreamEvent]:
        """The end of a blocked answer: the sentences never released, withheld; the block
        message after what the client has; the report as the client may see it."""
        out: list[StreamEvent] = [s.withheld() for s in unreleased]
        separator = "\n\n" if self._released else ""
        report = outcome.shown_as(self._shown)
        ended = blocked_end(outcome, separator, report, self._held, self._citing.cited())
        return [*out, *ended]
