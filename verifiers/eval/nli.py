"""Claim-level NLI quality: each claim of SciFact dev, HealthVer or Check-COVID dev against its
whole abstract, decided through windows with the OR-join, scored against the gold label; and
the same claims after the judge cascade."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from verifiers._types import Verdict
from verifiers.judge.offline import judge_claim
from verifiers.nli.decide import Decision
from verifiers.training.evaluate import decisions_all, label_ids, metrics, score_items
from verifiers.windows import make_evidence

if TYPE_CHECKING:
    from verifiers.judge import Cascade
    from verifiers.nli.bundled import BundledNLI
    from verifiers.training.benchmarks import AbstractItem

_CLASS_OF = {Verdict.SUPPORTED: 0, Verdict.UNSUPPORTED: 1, Verdict.CONTRADICTED: 2}


def evaluate(
    backend: BundledNLI, dataset: str, items: Sequence[AbstractItem]
) -> tuple[dict[str, Any], list[Decision]]:
    """The metrics (macro-F1, per class, confusion) with what was measured, and each claim's
    decision."""
    started = time.monotonic()
    scored = score_items(backend, items, backend.config.window_sizes)
    decisions = decisions_all(scored, backend.thresholds)
    result = asdict(metrics([i.label for i in items], label_ids(decisions))) | {
        "dataset": dataset,
        "items": len(items),
        "pairs": sum(map(len, scored)),
        "model": backend.version,
        "thresholds": asdict(backend.thresholds),
        "seconds": round(time.monotonic() - started, 1),
    }
    return result, decisions


def judged_labels(
    cascade: Cascade,
    items: Sequence[AbstractItem],
    decisions: Sequence[Decision],
    model_version: str,
    progress: Callable[[int, int], None] | None = None,
) -> list[int]:
    """Class ids after the cascade: one judge request per escalated claim."""
    labels = []
    for n, (item, decision) in enumerate(zip(items, decisions, strict=True), start=1):
        evidence = make_evidence(f"claim-{n}", "", list(item.sentences))
        verdict = judge_claim(cascade, item.claim, evidence, decision, model_version)
        labels.append(_CLASS_OF[verdict])
        if progress is not None:
            progress(n, len(items))
    return labels
