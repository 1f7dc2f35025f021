"""Calibrated confidence: the probability that a claim's verdict is right.

The NLI model's own probability says how sure the model is of its label, not how often that
label is right, and on the claim benchmarks it barely ranks the model's errors. The confidence
model reads what the engine knows about a judged claim (``ClaimSignals``: the stance margin of
the deciding window, how far the windows agree, relevance, lexical overlap, the deterministic
checks' outcomes, the claim's length and hedging) and maps it, one logistic regression per
verdict followed by an isotonic correction, to P(the verdict is right).

It is fitted by ``veriproxy train-nli --confidence-only`` on held-out training claims and on
answers to training questions only (``verifiers.training.confidence``), for one model version,
and ships beside that model as ``confidence.json`` with the ``review_below`` threshold that
makes unflagged ``supported`` verdicts reach the precision it was fitted for.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifiers._types import Verdict
from verifiers.checks.normalise import content_tokens
from verifiers.nli._base import NLIScores

CONFIDENCE_FILE = "confidence.json"
FLOOR, CEILING = 0.005, 0.995  # the most and least a fitted probability may claim
# The verdicts a claim can get from the engine; each has its own head.
CLAIM_VERDICTS: tuple[Verdict, ...] = (
    Verdict.SUPPORTED,
    Verdict.UNSUPPORTED,
    Verdict.CONTRADICTED,
)
FEATURES: tuple[str, ...] = (
    "nli_confidence",
    "top_relevance",
    "top_stance",
    "stance_margin",
    "second_relevance",
    "agreement",
    "max_entailment",
    "max_contradiction",
    "log_windows",
    "global_decided",
    "overlap_best",
    "overlap_top",
    "log_claim_words",
    "hedged",
    "negated",
    "has_number",
    "check_contradicts",
    "check_refutes_support",
    "check_withholds_support",
    "checks_passed",
    "log_novel_tokens",
    "hedge_mismatch",
    "negation_mismatch",
    "quantified",
    "comparative",
)
_HEDGE = re.compile(
    r"\b(may|might|could|possibly|potential(ly)?|suggests?|appears?|likely|unclear|"
    r"associated|perhaps|seems?)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(not|no|never|without|neither|nor|cannot|lack(s|ed)?)\b|n't\b", re.I)
_DIGIT = re.compile(r"\d")
_QUANTIFIER = re.compile(r"\b(all|every|always|none|never|only|most|majority|any)\b", re.I)
_COMPARATIVE = re.compile(
    r"\b(more|less|fewer|higher|lower|greater|smaller|larger|better|worse|superior|inferior|"
    r"increas\w*|decreas\w*|reduc\w*|improv\w*|than)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class ClaimSignals:
    """What the engine knows about one judged claim, as the confidence model reads it."""

    claim: str
    verdict: Verdict
    nli_confidence: float  # the decision rule's own probability for its label
    scores: tuple[NLIScores, ...]  # each window's local scores, best window first
    windows: tuple[str, ...]  # the windows' texts, same order
    global_decided: bool = False  # the pass over the best windows joined gave the label
    failed_effects: tuple[str, ...] = ()  # the ``Effect`` of each failed deterministic check
    passed_checks: int = 0
    # The claim repeats a clause of its window and no model scored it (``verifiers.restatement``):
    # nothing here for the confidence model to read, nor to learn from.
    restated: bool = False
    # Judged against the sentences its quote stands in (``Verifier`` premises), not windows
    # chosen for it: a verdict of another kind, with heads of its own where they were fitted.
    quoted: bool = False


def features(signals: ClaimSignals) -> tuple[float, ...]:
    """``FEATURES`` of one claim (relevance = 1 - P(neutral); stance = the share of entailment
    in what is not neutral)."""
    scores = signals.scores
    relevance = sorted((1.0 - s.neutral for s in scores), reverse=True)
    top_index = min(range(len(scores)), key=lambda i: scores[i].neutral) if scores else None
    top = scores[top_index] if top_index is not None else NLIScores(0.0, 1.0, 0.0)
    top_stance = _stance(top)
    relevant = [s for s in scores if 1.0 - s.neutral >= 0.5]
    agreement = (
        sum((_stance(s) >= 0.5) == (top_stance >= 0.5) for s in relevant) / len(relevant)
        if relevant
        else 0.0
    )
    claim_tokens = content_tokens(signals.claim)
    overlaps = [_overlap(claim_tokens, w) for w in signals.windows]
    top_text_overlap = overlaps[top_index] if top_index is not None and overlaps else 0.0
    top_text = signals.windows[top_index] if top_index is not None and signals.windows else ""
    seen = set().union(*(content_tokens(w) for w in signals.windows)) if signals.windows else set()
    effects = signals.failed_effects
    return (
        signals.nli_confidence,
        relevance[0] if relevance else 0.0,
        top_stance,
        abs(top_stance - 0.5),
        relevance[1] if len(relevance) > 1 else 0.0,
        agreement,
        max((s.entailment for s in scores), default=0.0),
        max((s.contradiction for s in scores), default=0.0),
        math.log1p(len(scores)),
        float(signals.global_decided),
        max(overlaps, default=0.0),
        top_text_overlap,
        math.log1p(len(signals.claim.split())),
        float(bool(_HEDGE.search(signals.claim))),
        float(bool(_NEGATION.search(signals.claim))),
        float(bool(_DIGIT.search(signals.claim))),
        float("contradicts" in effects),
        float("refutes_support" in effects),
        float("withholds_support" in effects),
        math.log1p(signals.passed_checks),
        math.log1p(len(claim_tokens - seen)),
        float(bool(_HEDGE.search(signals.claim)) != bool(_HEDGE.search(top_text))),
        float(len(_NEGATION.findall(signals.claim)) % 2 != len(_NEGATION.findall(top_text)) % 2),
        float(bool(_QUANTIFIER.search(signals.claim))),
        float(bool(_COMPARATIVE.search(signals.claim))),
    )


def _stance(scores: NLIScores) -> float:
    return scores.entailment / max(scores.entailment + scores.contradiction, 1e-9)


def _overlap(claim_tokens: set[str], window: str) -> float:
    if not claim_tokens:
        return 0.0
    return len(claim_tokens & content_tokens(window)) / len(claim_tokens)


@dataclass(frozen=True, slots=True)
class VerdictHead:
    """One verdict's logistic regression over standardised features, then the isotonic map
    from its output to the observed rate of right verdicts (``iso_x`` ascending)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    iso_x: tuple[float, ...] = ()
    iso_y: tuple[float, ...] = ()

    def raw(self, x: Sequence[float]) -> float:
        z = self.intercept + sum(
            w * (v - m) / s for w, v, m, s in zip(self.coef, x, self.mean, self.scale, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def probability(self, x: Sequence[float]) -> float:
        return self.calibrated(self.raw(x))

    def calibrated(self, raw: float) -> float:
        """The isotonic map applied to a raw output of this head, kept off 0 and 1: a few
        thousand claims never make a verdict certain."""
        return min(max(_interpolate(raw, self.iso_x, self.iso_y), FLOOR), CEILING)


def _interpolate(value: float, xs: Sequence[float], ys: Sequence[float]) -> float:
    """Piecewise-linear through (xs, ys), flat beyond the ends (as isotonic regression
    predicts); the value itself when there is no map."""
    if not xs:
        return value
    if value <= xs[0]:
        return ys[0]
    if value >= xs[-1]:
        return ys[-1]
    k = bisect.bisect_right(xs, value)
    x0, x1, y0, y1 = xs[k - 1], xs[k], ys[k - 1], ys[k]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (value - x0) / (x1 - x0)


@dataclass(frozen=True, slots=True)
class ConfidenceModel:
    """P(verdict right) for the claims of one NLI model version, and the review threshold
    fitted with it. ``fit`` records how it was fitted (claims, out-of-fold figures)."""

    model_version: str
    heads: Mapping[Verdict, VerdictHead]
    review_below: float
    fit: Mapping[str, Any] = field(default_factory=dict)
    # Heads for quoted claims (``ClaimSignals.quoted``): a claim read against the words it says
    # it rests on is right far more often than one read against windows chosen for it, so one
    # set of heads would call the first too doubtful or the second too sure. Empty: quoted
    # claims use ``heads``.
    quoted_heads: Mapping[Verdict, VerdictHead] = field(default_factory=dict)

    def probability(self, signals: ClaimSignals) -> float:
        heads = self.quoted_heads if signals.quoted and self.quoted_heads else self.heads
        head = heads.get(signals.verdict)
        if head is None:  # a verdict it was never fitted on: keep the model's own number
            return signals.nli_confidence
        return head.probability(features(signals))

    def to_json(self) -> dict[str, Any]:
        out = {
            "model_version": self.model_version,
            "features": list(FEATURES),
            "review_below": self.review_below,
            "heads": _heads_json(self.heads),
            "fit": dict(self.fit),
        }
        if self.quoted_heads:
            out["quoted_heads"] = _heads_json(self.quoted_heads)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ConfidenceModel:
        if tuple(raw["features"]) != FEATURES:
            raise ValueError("confidence model was fitted on other features; refit it")
        return cls(
            str(raw["model_version"]),
            _heads_from(raw["heads"]),
            float(raw["review_below"]),
            raw.get("fit", {}),
            _heads_from(raw.get("quoted_heads", {})),
        )

    def save(self, directory: Path) -> Path:
        path = directory / CONFIDENCE_FILE
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        return path


def _heads_json(heads: Mapping[Verdict, VerdictHead]) -> dict[str, Any]:
    return {
        verdict.value: {
            "mean": list(h.mean),
            "scale": list(h.scale),
            "coef": list(h.coef),
            "intercept": h.intercept,
            "iso_x": list(h.iso_x),
            "iso_y": list(h.iso_y),
        }
        for verdict, h in heads.items()
    }


def _heads_from(raw: Mapping[str, Any]) -> dict[Verdict, VerdictHead]:
    return {
        Verdict(name): VerdictHead(
            tuple(h["mean"]),
            tuple(h["scale"]),
            tuple(h["coef"]),
            float(h["intercept"]),
            tuple(h["iso_x"]),
            tuple(h["iso_y"]),
        )
        for name, h in raw.items()
    }


def load_confidence(directory: Path, model_version: str) -> ConfidenceModel | None:
    """The confidence model beside a model, when there is one fitted for this version."""
    path = directory / CONFIDENCE_FILE
    if not path.is_file():
        return None
    model = ConfidenceModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    return model if model.model_version == model_version else None
