"""Streams with more than one choice (``n > 1``, or an upstream that sends other indexes).

The policy's stream mode (:mod:`proxy.verification.streams`) runs on choice 0. Every other
choice is taken out of the stream as it arrives and collected; once the upstream is done it is
verified whole, on its own session, and only then released, in both modes, as events
(:mod:`proxy.verification.events`) with the choice's ``index``: its content (redacted, or the
policy's message when blocked) with the ``logprobs`` of the text shown as written, each
sentence, its report and its finish. So nothing of another choice reaches the client
unverified, in ``content`` or in ``logprobs``. The upstream's usage comes last, after every
choice.

A choice that cannot be verified -- the stream stopped before it was complete (choice 0 was
blocked, the upstream failed, the client left), or it carries tool calls or audio -- is
reported ``unverified`` with the reason. In ``gate`` mode it is then withheld whatever the
policy's ``on_verifier_error`` says (fail closed); in ``annotate`` mode the policy decides.
Each choice gets its own audit record.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from policies import Action, DecidedReport
from proxy.settings.retrieval import QuoteDisplay
from proxy.streaming import StreamChunk
from proxy.verification import render
from proxy.verification.answers import AnswerTexts, Unverifiable, UnverifiedReason
from proxy.verification.completion import verify_choice
from proxy.verification.events import (
    Finish,
    Opened,
    OtherChoice,
    Report,
    Sentence,
    StreamEvent,
    Usage,
)
from proxy.verification.logprobs import token_entries
from proxy.verification.redact import enforce_on_choice
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.shapes import (
    CONTENT_FILTER,
    TOOL_CALLS_UNREAD,
    ChoiceShape,
    StreamedChoice,
    streamed_choices,
)

NewSession = Callable[[int, bool], VerificationSession]  # (choice index, fail closed)
Record = Callable[[Outcome, str], None]
FirstChoice = Callable[[AsyncIterator[StreamChunk]], AsyncIterator[StreamEvent]]


@dataclass
class _Choice:
    """What arrived of one other choice."""

    index: int
    text: list[str] = field(default_factory=list)
    tokens: list[Mapping[str, Any]] = field(default_factory=list)
    tokens_ok: bool = True
    reasons: list[str] = field(default_factory=list)
    finish: str | None = None

    def add(self, choice: StreamedChoice) -> None:
        """Only its text and tokens are kept: whatever else it carries (tool calls, a refusal)
        is a reason it is not verified, and is never sent."""
        text = choice.text
        self.text.append(text)
        self.reasons.extend(choice.reasons)
        if choice.tool_calls:
            self.reasons.append(TOOL_CALLS_UNREAD)
        entries = token_entries(choice.logprobs)
        if choice.logprobs is not None and (entries is None or _mismatch(entries, text)):
            self.tokens_ok = False
        elif entries:
            self.tokens.extend(entries)
        self.finish = choice.finish or self.finish

    def entry(self) -> dict[str, Any]:
        """The choice as a non-streamed completion would hold it."""
        logprobs = {"content": self.tokens, "refusal": None} if self.tokens_ok else None
        message = {"role": "assistant", "content": "".join(self.text)}
        return {"index": self.index, "message": message, "logprobs": logprobs}


class _Others:
    def __init__(self) -> None:
        self.choices: dict[int, _Choice] = {}
        self.envelope: dict[str, Any] = {}
        self.complete = False  # the upstream stream ended normally

    async def first_only(self, chunks: AsyncIterator[StreamChunk]) -> AsyncIterator[StreamChunk]:
        """The upstream's chunks with every choice but 0 taken out (and collected)."""
        async for chunk in chunks:
            data = chunk.data
            entries = data.get("choices") if data is not None else None
            if not isinstance(entries, list) or not entries:
                yield chunk
                continue
            if not self.envelope and data is not None:
                self.envelope = render.envelope(data, "chat.completion.chunk")
            read = streamed_choices(data)  # type: ignore[arg-type]
            first = [c for c, r in zip(entries, read, strict=True) if not r.index]
            if len(first) == len(entries):
                yield chunk
                continue
            for r in read:
                if r.index:  # another choice (an index that is not an integer stays: see streams)
                    self.choices.setdefault(r.index, _Choice(r.index)).add(r)
            if first:
                yield StreamChunk.from_data({**data, "choices": first})  # type: ignore[dict-item]
        self.complete = True

    async def release(
        self, new_session: NewSession, record: Record, gate: bool, quotes: QuoteDisplay
    ) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for index in sorted(self.choices):
            choice = self.choices.pop(index)
            session = new_session(index, gate)
            outcome, shown_entry, report, text = await self._verify(choice, session, quotes)
            record(outcome, text)
            out.extend(self._events(choice, shown_entry, report, outcome))
        return out

    def abandon(self, new_session: NewSession, record: Record, gate: bool, reason: str) -> None:
        """Audit the choices never released (the client left, the upstream failed)."""
        for index in sorted(self.choices):
            choice = self.choices.pop(index)
            record(new_session(index, gate).stop(reason), "".join(choice.text))

    async def _verify(
        self, choice: _Choice, session: VerificationSession, quotes: QuoteDisplay
    ) -> tuple[Outcome, Mapping[str, Any], DecidedReport, str]:
        """The choice's outcome, the choice as the client may get it, its report and the text
        verified (quotes stripped, as the client reads it)."""
        entry: Any = choice.entry()
        if not self.complete:
            outcome = session.stop(f"the stream stopped before choice {choice.index} was complete")
            texts = AnswerTexts()
        else:
            gaps = tuple(
                Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, r)
                for r in dict.fromkeys(choice.reasons)
            )
            shape = ChoiceShape(choice.index, entry["message"])
            entry, texts, outcome = await verify_choice(
                entry, shape, session, quotes, json_content=False, unverifiable=gaps
            )
        shown, report = enforce_on_choice(entry, choice.index, outcome, session, texts)
        assert isinstance(shown, Mapping)  # ``entry`` is an object, so is what comes back
        return outcome, shown, report, texts.text or "".join(choice.text)

    def _events(
        self, choice: _Choice, shown: Mapping[str, Any], report: DecidedReport, outcome: Outcome
    ) -> list[StreamEvent]:
        """The choice whole: its text and citations, its sentences, its report, its finish."""
        index = choice.index
        blocked = outcome.decision.enforced_action is Action.BLOCK
        message = shown["message"]
        delta = {"role": "assistant", "content": message["content"]}
        if message.get("annotations"):
            delta["annotations"] = message["annotations"]
        out: list[StreamEvent] = [
            Opened(self.envelope, index),
            OtherChoice(index, delta, shown.get("logprobs")),
        ]
        decided = zip(report.sentences, outcome.sentences, strict=True)
        out.extend(Sentence(s, decision, index) for s, decision in decided)
        out.append(Report(outcome, report, choice=index))
        finish = CONTENT_FILTER if blocked else render.finish_reason(choice.finish)
        out.append(Finish(finish, choice=index))
        return out


def _mismatch(entries: list[Mapping[str, Any]], text: str) -> bool:
    """True when the tokens do not spell the text (the entries cannot be matched to it)."""
    return "".join(str(e["token"]) for e in entries) != text


async def with_other_choices(
    chunks: AsyncIterator[StreamChunk],
    first_choice: FirstChoice,
    new_session: NewSession,
    record: Record,
    *,
    gate: bool,
    quotes: QuoteDisplay = QuoteDisplay.STRIP,
) -> AsyncIterator[StreamEvent]:
    """``first_choice`` (the policy's stream mode) on choice 0; the other choices after it,
    verified (``quotes``: what the client reads of a quoted citation); the upstream's usage
    last."""
    others = _Others()
    usage: list[Usage] = []
    reason = "the client went away before the choice was verified"
    try:
        async with aclosing(first_choice(others.first_only(chunks))) as first:  # type: ignore[type-var]
            async for event in first:
                if others.choices and isinstance(event, Usage):
                    usage.append(event)  # after the other choices
                    continue
                yield event
        for event in await others.release(new_session, record, gate, quotes):
            yield event
        for event in usage:
            yield event
    except Exception:
        reason = "the answer failed before the choice was verified"
        raise
    finally:
        others.abandon(new_session, record, gate, reason)
