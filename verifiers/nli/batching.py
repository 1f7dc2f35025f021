"""Cross-request micro-batching: one worker per process scores the pairs of every caller.

Each request verifies its answer in a worker thread of its own, and without this every thread
ran its own, small NLI batches: concurrent requests never shared one, and on a GPU a batch of
six pairs leaves almost all of it idle. :class:`BatchingNLI` wraps any backend. ``predict``
queues the caller's pairs and blocks; one worker thread gathers the pairs of all waiting
callers -- for at most ``max_wait_s`` after the first arrived, or until ``max_pairs`` are
waiting -- runs them as one call of the wrapped backend (which buckets them by length), and
hands each caller its own scores, in order. A caller returns as soon as its own pairs are
scored, so gate mode still releases each sentence when its own verdict is known.

Fairness: a batch takes at most ``fair_share`` pairs from each caller per round, round-robin
in arrival order, so a 50-sentence answer's hundreds of pairs cannot make a 2-sentence answer
wait behind all of them: the small one rides in the next batch.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from verifiers.nli._base import NLIBackend, NLIError, NLIPair, NLIScores

DEFAULT_MAX_WAIT_S = 0.005
DEFAULT_MAX_PAIRS = 64
DEFAULT_FAIR_SHARE = 16
OPTIONS = ("max_wait_ms", "max_pairs", "fair_share")


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """``verifier.batching`` in the configuration."""

    max_wait_s: float = DEFAULT_MAX_WAIT_S
    max_pairs: int = DEFAULT_MAX_PAIRS
    fair_share: int = DEFAULT_FAIR_SHARE

    @classmethod
    def parse(cls, options: Mapping[str, Any] | None) -> BatchOptions:
        """From ``{"max_wait_ms": 5, "max_pairs": 64, "fair_share": 16}`` (``{}``: the
        defaults); an unknown or out-of-range option is an ``NLIError`` naming it."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            known = ", ".join(OPTIONS)
            raise NLIError(f"batching: unknown option {unknown[0]!r}; choose from {known}")
        try:
            parsed = cls(
                max_wait_s=float(options.get("max_wait_ms", DEFAULT_MAX_WAIT_S * 1000)) / 1000,
                max_pairs=int(options.get("max_pairs", DEFAULT_MAX_PAIRS)),
                fair_share=int(options.get("fair_share", DEFAULT_FAIR_SHARE)),
            )
        except (TypeError, ValueError) as exc:
            raise NLIError(f"batching: {exc}") from None
        if parsed.max_pairs < 1 or parsed.fair_share < 1 or parsed.max_wait_s < 0:
            raise NLIError("batching: max_pairs and fair_share must be >= 1, max_wait_ms >= 0")
        return parsed


def batched(inner: NLIBackend, options: BatchOptions) -> BatchingNLI:
    """``inner`` behind a batcher configured as ``verifier.batching`` says."""
    return BatchingNLI(
        inner,
        max_wait_s=options.max_wait_s,
        max_pairs=options.max_pairs,
        fair_share=options.fair_share,
    )


@dataclass(frozen=True, slots=True)
class BatchStats:
    """What the worker has done so far (for benchmarks and tests)."""

    batches: int
    pairs: int
    largest: int
    callers_per_batch_max: int


@dataclass(eq=False, slots=True)
class _Job:
    pairs: Sequence[NLIPair]
    scores: list[NLIScores | None]
    future: Future[list[NLIScores]] = field(default_factory=Future)
    taken: int = 0  # pairs handed to a batch so far
    done: int = 0  # pairs scored so far

    @property
    def waiting(self) -> int:
        return len(self.pairs) - self.taken


class BatchingNLI:
    """An :class:`~verifiers.nli._base.NLIBackend` that pools concurrent callers' pairs.
    ``close()`` stops the worker; calls after it fail."""

    def __init__(
        self,
        inner: NLIBackend,
        *,
        max_wait_s: float = DEFAULT_MAX_WAIT_S,
        max_pairs: int = DEFAULT_MAX_PAIRS,
        fair_share: int = DEFAULT_FAIR_SHARE,
    ) -> None:
        if max_pairs < 1 or fair_share < 1 or max_wait_s < 0:
            raise ValueError("max_pairs and fair_share must be >= 1, max_wait_s >= 0")
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self._max_wait_s = max_wait_s
        self._max_pairs = max_pairs
        self._fair_share = fair_share
        self._jobs: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._batches = self._pairs = self._largest = self._callers_max = 0
        self._worker = threading.Thread(target=self._run, name="nli-batcher", daemon=True)
        self._worker.start()

    def __getattr__(self, name: str) -> Any:
        # What the engine reads of a backend besides predict (calibrated thresholds, the
        # model's window sizes) is the wrapped backend's.
        if name == "inner":  # not yet set (a half-built or copied instance)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        if not pairs:
            return []
        job = _Job(pairs, [None] * len(pairs))
        with self._cond:
            if self._closed:
                raise RuntimeError("the NLI batcher is closed")
            self._jobs.append(job)
            self._cond.notify()
        return job.future.result()

    @property
    def stats(self) -> BatchStats:
        with self._cond:
            return BatchStats(self._batches, self._pairs, self._largest, self._callers_max)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._worker.join()

    # -- the worker ---------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                batch = self._gather()
            if batch is None:
                return
            self._score(batch)

    def _gather(self) -> list[tuple[_Job, int, int]] | None:
        """Wait for pairs, then up to ``max_wait_s`` for more; take one batch (called with the
        lock held). Each entry: the job and the range of its pairs in the batch."""
        while not self._jobs and not self._closed:
            self._cond.wait()
        if self._closed:
            for job in self._jobs:
                job.future.set_exception(RuntimeError("the NLI batcher is closed"))
            self._jobs.clear()
            return None
        deadline = time.monotonic() + self._max_wait_s
        while self._waiting() < self._max_pairs and not self._closed:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._cond.wait(left)
        return self._take()

    def _waiting(self) -> int:
        return sum(job.waiting for job in self._jobs)

    def _take(self) -> list[tuple[_Job, int, int]]:
        """Round-robin over the waiting callers, ``fair_share`` pairs each per round."""
        taken: dict[_Job, tuple[int, int]] = {}
        room = self._max_pairs
        while room > 0 and any(job.waiting for job in self._jobs):
            for job in self._jobs:
                count = min(job.waiting, self._fair_share, room)
                if count <= 0:
                    continue
                start, _ = taken.get(job, (job.taken, job.taken))
                job.taken += count
                taken[job] = (start, job.taken)
                room -= count
                if room == 0:
                    break
        # A job all of whose pairs are in a batch leaves the queue (its last batch resolves it).
        self._jobs = deque(job for job in self._jobs if job.waiting)
        return [(job, start, end) for job, (start, end) in taken.items()]

    def _score(self, batch: list[tuple[_Job, int, int]]) -> None:
        pairs = [pair for job, start, end in batch for pair in job.pairs[start:end]]
        try:
            scores = self.inner.predict(pairs)
        except BaseException as exc:
            for job, _, _ in batch:
                if not job.future.done():
                    job.future.set_exception(exc)
            with self._cond:  # the rest of a failed job is not worth scoring
                failed = {job for job, _, _ in batch}
                self._jobs = deque(job for job in self._jobs if job not in failed)
            return
        offset = 0
        for job, start, end in batch:
            job.scores[start:end] = scores[offset : offset + end - start]
            offset += end - start
            job.done += end - start
            if job.done == len(job.pairs) and not job.future.done():
                job.future.set_result([s for s in job.scores if s is not None])
        with self._cond:
            self._batches += 1
            self._pairs += len(pairs)
            self._largest = max(self._largest, len(pairs))
            self._callers_max = max(self._callers_max, len(batch))
