"""The LLM judge alongside a streamed answer (gate mode): batches judged in the background
while the answer streams on.

One judge request is in flight at a time. Sentences that complete while it runs wait and go
together in the next request, so a slow judge delays a gated answer by about one or two judge
calls, not one per sentence, and an answer costs a few requests, not one per sentence. Annotate
mode uses ``settle`` alone: one request at the end. A failure inside the cascade (a bug; the
judge's own failures are verdicts of ``judge_error`` already) keeps the bundled verdicts and is
reported as the summary's ``judge_error``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace

from verifiers import EscalationSummary, SentenceAnnotation
from verifiers.judge import EscalationRun

logger = logging.getLogger("veriproxy.verification")


class BackgroundEscalation:
    def __init__(self, run: EscalationRun) -> None:
        self._run = run
        self._judged: dict[int, SentenceAnnotation] = {}
        self._wanted: set[int] = set()
        self._waiting: list[SentenceAnnotation] = []
        self._task: asyncio.Task[None] | None = None
        self._error: str | None = None

    def submit(self, sentences: Iterable[SentenceAnnotation]) -> None:
        """Queue the sentences an escalation rule picks (others need no judge)."""
        for sentence in sentences:
            if sentence.index not in self._wanted and self._run.wants(sentence):
                self._wanted.add(sentence.index)
                self._waiting.append(sentence)
        self._start_next()

    def final(self, sentence: SentenceAnnotation) -> SentenceAnnotation | None:
        """The sentence as the cascade leaves it, or None while its judge request runs."""
        if sentence.index not in self._wanted:
            return sentence
        return self._judged.get(sentence.index)

    async def settle(self, sentences: Sequence[SentenceAnnotation]) -> list[SentenceAnnotation]:
        """``sentences`` once every escalation of theirs is done (the end of the answer)."""
        self.submit(sentences)
        while self._task is not None:
            await asyncio.shield(self._task)
        return [self._judged.get(s.index, s) for s in sentences]

    def summary(self) -> EscalationSummary:
        summary = self._run.summary()
        return summary if self._error is None else replace(summary, judge_error=self._error)

    def cancel(self) -> None:
        """The answer ended early (a block, the client left): stop waiting for the judge."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _start_next(self) -> None:
        if self._task is None and self._waiting:
            batch, self._waiting = self._waiting, []
            self._task = asyncio.create_task(self._judge(batch))

    async def _judge(self, batch: list[SentenceAnnotation]) -> None:
        try:
            judged = await self._run.escalate(batch)
        except Exception as exc:  # a bug in the cascade must not lose the bundled verdicts
            logger.error("judge cascade failed", exc_info=exc)
            self._error = f"judge cascade error ({type(exc).__name__})"
            judged = batch
        self._judged.update((s.index, s) for s in judged)
        self._task = None
        self._start_next()
