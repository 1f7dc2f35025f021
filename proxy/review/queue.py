"""The running review queue: what the recorder offers it, what reviewers read and label, and
the estimates it keeps in the metrics.

:meth:`ReviewQueue.offer` runs in the event loop on every final report and only samples; a
background task writes the sampled items to the store in a worker thread. Reviewers' calls run
in a worker thread too, and each label is written to the store, then to the audit log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from sqlalchemy.exc import SQLAlchemyError

from proxy.audit import AuditLog
from proxy.metrics import Metrics
from proxy.outcome import ResponseOutcome
from proxy.review.errors import AlreadyLabelled, InvalidLabel, ReviewItemNotFound, ReviewUnavailable
from proxy.review.estimate import Agreement, agreement, judged, precision, verified_responses
from proxy.review.event import LabelEvent
from proxy.review.items import MAX_NOTE_CHARS, Label, ReviewItem
from proxy.review.sampling import Sampler
from proxy.review.store import DuplicateLabel, ReviewStore, open_store
from proxy.settings.review import VERDICTS, ReviewSettings

log = logging.getLogger("veriproxy.review")
MAX_PENDING = 10_000  # sampled items waiting for the store; beyond, new ones are dropped
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Summary:
    """What a tenant's reviewers see of their own work."""

    labelled: int  # items with at least one label
    agreement: Agreement


class ReviewQueue:
    def __init__(
        self,
        settings: ReviewSettings,
        audit: AuditLog,
        metrics: Metrics,
        sampler: Sampler | None = None,
    ) -> None:
        self.settings = settings
        self._audit = audit
        self._metrics = metrics
        self._sampler = sampler or Sampler(settings)
        self._pending: list[ReviewItem] = []
        self._store: ReviewStore | None = None
        self._wake: asyncio.Event | None = None
        metrics.review_floor.set(settings.precision_floor)

    def offer(self, outcome: ResponseOutcome) -> None:
        """Sample a final report's sentences (the recorder calls this once per response)."""
        found = self._sampler.select(outcome, time.time())
        if not found:
            return
        if len(self._pending) + len(found) > MAX_PENDING:
            log.warning("review queue: %d sampled items dropped (store behind)", len(found))
            self._metrics.review_dropped.inc(len(found))
            return
        self._pending.extend(found)
        for item in found:
            self._metrics.review_sampled.labels(item.reason).inc()
        if self._wake is not None:
            self._wake.set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Open the store (migrating it), write sampled items while running, flush on exit."""
        self._store = await anyio.to_thread.run_sync(open_store, self.settings.store)
        self._wake = asyncio.Event()
        writer = asyncio.create_task(self._write_forever())
        await self.refresh()
        try:
            yield
        finally:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
            await self.flush()
            self._store.close()

    async def _write_forever(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self.flush()

    async def flush(self) -> None:
        """Write the sampled items now (tests and shutdown; the writer does it as they come)."""
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            await self._call(lambda store: store.add_items(batch, self.settings.daily_cap))
        except ReviewUnavailable:
            log.warning("review queue: %d sampled items lost (store unreachable)", len(batch))
            self._metrics.review_dropped.inc(len(batch))

    async def pending(self, tenant: str, reviewer: str, limit: int) -> list[ReviewItem]:
        needed = self.settings.reviewers_per_item
        return await self._call(lambda store: store.pending(tenant, reviewer, needed, limit))

    async def label(
        self, tenant: str, reviewer: str, item_id: int, verdict: str, note: str
    ) -> Label:
        """Record one reviewer's verdict on an item of their tenant; ``correct`` follows from it."""
        if verdict not in VERDICTS:
            raise InvalidLabel(f"verdict must be one of {', '.join(VERDICTS)}", param="verdict")
        if len(note) > MAX_NOTE_CHARS:
            raise InvalidLabel(f"note is longer than {MAX_NOTE_CHARS} characters", param="note")
        item = await self._call(lambda store: store.item(item_id, tenant))
        if item is None:
            raise ReviewItemNotFound("no review item with this id", param="item_id")
        label = Label(item_id, reviewer, verdict == item.verdict, verdict, note, time.time())
        try:
            await self._call(lambda store: store.add_label(label))
        except DuplicateLabel as exc:
            raise AlreadyLabelled("you have labelled this item already") from exc
        self._audit.write(LabelEvent(item, label))
        await self.refresh()
        return label

    async def summary(self, tenant: str) -> Summary:
        found = await self._call(lambda store: store.labelled(tenant))
        return Summary(len(found), agreement(found))

    async def refresh(self) -> None:
        """Recompute the estimates the metrics expose, from every label in the store."""
        try:
            found = await self._call(lambda store: store.labelled())
        except ReviewUnavailable:
            log.warning("review queue: estimates not refreshed (store unreachable)")
            return
        rows = judged(found)
        self._metrics.observe_review("verified_responses", verified_responses(rows))
        self._metrics.observe_review("supported_sentences", precision(rows, "supported"))

    async def _call(self, work: Callable[[ReviewStore], T]) -> T:
        store = self._store
        if store is None:
            raise ReviewUnavailable("the review store is not open")
        try:
            return await anyio.to_thread.run_sync(work, store)
        except SQLAlchemyError as exc:
            raise ReviewUnavailable("the review store cannot be reached now; retry later") from exc
