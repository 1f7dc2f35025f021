"""Claim-level quality: each claim of SciFact dev, HealthVer or Check-COVID dev against its
whole abstract, scored against the gold label, in one of two ways:

- ``evaluate_engine`` (the default of ``veriproxy eval nli``): through ``Verifier.judge_claims``,
  as the proxy judges a claim against the abstract it cites (window selection, NLI, the
  deterministic checks, the calibrated confidence and ``needs_review``);
- ``evaluate`` (``--model-only``): the model and its decision rule over every window of the
  abstract, the figure recorded in the model card to compare models.

``selective`` measures what the confidence is worth: how many of the wrong verdicts the least
confident claims hold, the risk-coverage area, calibration, and the claims left unmarked by
``needs_review``. ``judged_labels`` gives the labels after the judge cascade.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from verifiers._types import NLILabel, Verdict
from verifiers.judge.offline import judge_claim
from verifiers.nli.decide import Decision
from verifiers.training.evaluate import (
    CLASS_NAMES,
    decisions_all,
    label_ids,
    metrics,
    score_items,
)
from verifiers.training.reliability import (
    CAPTURE_FRACTIONS,
    aurc,
    capture_ceiling,
    error_capture,
    reliability,
)
from verifiers.windows import make_evidence

if TYPE_CHECKING:
    from verifiers.engine import ClaimJudgement, Verifier
    from verifiers.judge import Cascade
    from verifiers.nli.bundled import BundledNLI
    from verifiers.training.benchmarks import AbstractItem

_CLASS_OF = {Verdict.SUPPORTED: 0, Verdict.UNSUPPORTED: 1, Verdict.CONTRADICTED: 2}
_LABEL_OF = {
    Verdict.SUPPORTED: NLILabel.ENTAILMENT,
    Verdict.UNSUPPORTED: NLILabel.NEUTRAL,
    Verdict.CONTRADICTED: NLILabel.CONTRADICTION,
}
_VERDICT_OF = {label: verdict for verdict, label in _LABEL_OF.items()}
_SUPPORTED = CLASS_NAMES.index("supported")


def evaluate(
    backend: BundledNLI, dataset: str, items: Sequence[AbstractItem]
) -> tuple[dict[str, Any], list[Decision]]:
    """The model alone: the metrics (macro-F1, per class, confusion) with what was measured,
    and each claim's decision."""
    started = time.monotonic()
    scored = score_items(backend, items, backend.config.window_sizes)
    decisions = decisions_all(scored, backend.thresholds)
    result = asdict(metrics([i.label for i in items], label_ids(decisions))) | {
        "dataset": dataset,
        "path": "model",
        "items": len(items),
        "pairs": sum(map(len, scored)),
        "model": backend.version,
        "thresholds": asdict(backend.thresholds),
        "seconds": round(time.monotonic() - started, 1),
    }
    return result, decisions


def evaluate_engine(
    verifier: Verifier,
    dataset: str,
    items: Sequence[AbstractItem],
    progress: Callable[[int, int], None] | None = None,
    batch: int = 64,
) -> tuple[dict[str, Any], list[Decision], list[ClaimJudgement]]:
    """The engine's verdicts: metrics as ``evaluate`` gives them, each claim as a ``Decision``
    (label and calibrated confidence, for the coverage table) and its full judgement."""
    started = time.monotonic()
    judged: list[ClaimJudgement] = []
    for first in range(0, len(items), batch):
        chunk = items[first : first + batch]
        evidence = [
            (make_evidence(f"claim-{first + n}", "", list(item.sentences)),)
            for n, item in enumerate(chunk)
        ]
        judged += verifier.judge_claims([item.claim for item in chunk], evidence)
        if progress is not None:
            progress(len(judged), len(items))
    decisions = [Decision(_LABEL_OF[j.verdict], j.confidence, None) for j in judged]
    result = asdict(metrics([i.label for i in items], label_ids(decisions))) | {
        "dataset": dataset,
        "path": "engine",
        "items": len(items),
        "pairs": sum(len(j.signals.scores) for j in judged),
        "model": verifier.nli.version,
        "calibrated_confidence": verifier.confidence is not None,
        "review_below": verifier.review_below,
        "seconds": round(time.monotonic() - started, 1),
    }
    return result, decisions, judged


def selective(
    gold: Sequence[int],
    predicted: Sequence[int],
    confidence: Sequence[float],
    needs_review: Sequence[bool] | None = None,
) -> dict[str, Any]:
    """Error capture at 10/20/30% (with the ceiling a perfect ranking reaches), AURC, the
    reliability table and ECE, and, with ``needs_review``, the claims left unmarked: their
    share, the precision of their ``supported`` verdicts and the share of gold-supported
    claims kept as supported."""
    right = [g == p for g, p in zip(gold, predicted, strict=True)]
    bins, ece = reliability(confidence, right)
    out: dict[str, Any] = {
        "error_capture": {f"{k}%": v for k, v in error_capture(confidence, right).items()},
        "capture_ceiling": {
            f"{round(f * 100)}%": capture_ceiling(right, f) for f in CAPTURE_FRACTIONS
        },
        "aurc": aurc(confidence, right),
        "ece": ece,
        "reliability": [asdict(b) for b in bins],
    }
    if needs_review is not None:
        kept = [i for i, marked in enumerate(needs_review) if not marked]
        supported = [i for i in kept if predicted[i] == _SUPPORTED]
        gold_supported = sum(g == _SUPPORTED for g in gold)
        out["needs_review"] = {
            "marked": len(gold) - len(kept),
            "marked_share": round((len(gold) - len(kept)) / max(len(gold), 1), 4),
            "kept_accuracy": round(sum(right[i] for i in kept) / max(len(kept), 1), 4),
            "kept_supported": len(supported),
            "kept_supported_precision": round(
                sum(gold[i] == _SUPPORTED for i in supported) / max(len(supported), 1), 4
            ),
            "supported_recall_kept": round(
                sum(gold[i] == _SUPPORTED for i in supported) / max(gold_supported, 1), 4
            ),
        }
    return out


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
        verdict = judge_claim(
            cascade,
            item.claim,
            evidence,
            _VERDICT_OF[decision.label],
            decision.confidence,
            model_version,
        )
        labels.append(_CLASS_OF[verdict])
        if progress is not None:
            progress(n, len(items))
    return labels
