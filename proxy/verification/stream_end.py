"""How a stream mode ends: the one outcome per answer, however the stream stops, and the events
that end a blocked answer (both modes end one the same way)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from typing import Protocol

from policies import DecidedReport
from proxy.errors import ProxyError
from proxy.streaming import StreamChunk
from proxy.verification.annotations import UrlCitation
from proxy.verification.events import (
    BlockMessage,
    Finish,
    Report,
    StreamEvent,
    Usage,
)
from proxy.verification.held import Held
from proxy.verification.session import Outcome
from proxy.verification.shapes import CONTENT_FILTER, STOP

CLIENT_GONE = "the client went away before verification finished"
Finished = Callable[[Outcome, str], None]  # called once with the outcome and the full answer


def failure_reason(exc: ProxyError) -> str:
    """The audit reason for an answer that failed: status and code only, never upstream text."""
    return f"the answer failed (HTTP {exc.status}, {exc.code or exc.type}) and was not verified"


class StreamMode(Protocol):
    """One answer's stream mode: its events, and its outcome once it has one."""

    outcome: Outcome | None

    @property
    def answer(self) -> str:
        """The answer's text so far, as verified."""
        ...

    def events(self, chunks: AsyncIterator[StreamChunk]) -> AsyncIterator[StreamEvent]: ...

    def stopped(self, reason: str) -> Outcome:
        """The outcome of an answer that stopped early (``reason``: why the rest of it is not
        verified)."""
        ...

    def close(self) -> None:
        """Stop the work still running (the stream is over)."""
        ...


async def run_mode(
    mode: StreamMode, chunks: AsyncIterator[StreamChunk], finished: Finished
) -> AsyncIterator[StreamEvent]:
    """``mode``'s events; ``finished`` gets its outcome once, however the stream ends: the
    outcome it came to, or, when the answer failed or the client went away first, what was
    verified by then, the rest reported unverified with the reason."""
    try:
        async with aclosing(mode.events(chunks)) as events:  # type: ignore[type-var]
            async for event in events:
                yield event
    except ProxyError as exc:
        if mode.outcome is None:
            mode.outcome = mode.stopped(failure_reason(exc))
        raise
    finally:
        mode.close()
        outcome = mode.outcome or mode.stopped(CLIENT_GONE)
        finished(outcome, mode.answer)


def block_finish_reason(*, structured: bool, refused: bool) -> str:
    """How a blocked stream finishes: ``content_filter``, except for a structured answer
    declined with a refusal, which finishes ``stop`` as OpenAI's refusals do (the SDK's stream
    helper raises on ``content_filter`` before it reads a refusal)."""
    return STOP if structured and refused else CONTENT_FILTER


def blocked_end(
    outcome: Outcome,
    separator: str,
    report: DecidedReport,
    held: Held,
    citations: tuple[UrlCitation, ...],
) -> list[StreamEvent]:
    """The end of a blocked answer: the block message, the client's report (with the citations
    of the text shown), ``finish_reason: "content_filter"`` and the upstream's usage counts when
    it sent them (a block found before its end cancels it: no counts, none sent). A structured
    answer gets no message text (it would break the object the client is parsing): the message
    is its ``refusal`` and it finishes ``stop``, as OpenAI declines a structured answer."""
    message = outcome.decision.message or ""
    structured = held.shape.structured
    out: list[StreamEvent] = []
    if message:
        out.append(BlockMessage(message, separator, structured))
    out.append(Report(outcome, report, citations))
    out.append(Finish(block_finish_reason(structured=structured, refused=bool(message))))
    if held.usage is not None:
        out.append(Usage(held.usage))
    return out
