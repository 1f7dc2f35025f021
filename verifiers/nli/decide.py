"""Claim-level decisions from a claim's evidence windows, by one of three rules.

``or_join`` (the default for any backend): any confident contradiction decides
``contradiction``; else any confident entailment decides ``entailment``; else ``neutral``.
Contradiction goes first because one refuting sentence is enough to make a claim unsafe, while
support elsewhere in the abstract does not cancel it.

``most_relevant`` (the bundled model's calibrated rule): the window the model finds most
relevant (least neutral) decides. Below the relevance threshold the claim is ``neutral``;
otherwise the window's stance, P(entailment) / (P(entailment) + P(contradiction)), picks
``entailment`` at or above the support threshold and ``contradiction`` at or below the refute
threshold; in between the model leans neither way clearly and the claim is ``neutral`` (with
no refute threshold, everything below support is ``contradiction``). It suits a
model whose head scores relevance and stance separately: the OR-join over twenty windows of an
abstract lets one noisy window decide, while the most relevant window is the one the claim is
about. On the bundled model it raised macro-F1 on SciFact dev, HealthVer and Check-COVID dev,
contradicted F1 included (docs/nli-model.md).

``learned``: a small multinomial logistic regression (``Aggregator``) over features of all the
claim's windows (``claim_features``), fitted by ``veriproxy train-nli`` on held-out training
claims only. The most relevant window is still the one reported as deciding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verifiers._types import NLILabel
from verifiers.nli._base import NLIScores

Rule = Literal["or_join", "most_relevant", "learned"]
RULES: tuple[str, ...] = ("or_join", "most_relevant", "learned")
FEATURES: tuple[str, ...] = (
    "top_relevance",
    "top_stance",
    "second_relevance",
    "mean_top3_relevance",
    "max_entailment",
    "max_contradiction",
    "relevant_stance",
    "log_windows",
)
_LABELS = (NLILabel.ENTAILMENT, NLILabel.NEUTRAL, NLILabel.CONTRADICTION)


def claim_features(scores: Sequence[NLIScores]) -> list[float]:
    """The ``FEATURES`` of one claim's windows (relevance = 1 - P(neutral), stance = the share
    of entailment in what is not neutral)."""
    relevance = sorted((1.0 - s.neutral for s in scores), reverse=True)
    top = min(scores, key=lambda s: s.neutral)
    relevant = [s for s in scores if 1.0 - s.neutral >= 0.5] or [top]
    ent = sum(s.entailment for s in relevant)
    con = sum(s.contradiction for s in relevant)
    return [
        relevance[0],
        top.entailment / max(1.0 - top.neutral, 1e-9),
        relevance[1] if len(relevance) > 1 else 0.0,
        sum(relevance[:3]) / min(len(relevance), 3),
        max(s.entailment for s in scores),
        max(s.contradiction for s in scores),
        ent / max(ent + con, 1e-9),
        math.log1p(len(scores)),
    ]


@dataclass(frozen=True, slots=True)
class Aggregator:
    """Multinomial logistic regression over standardised ``FEATURES``; rows of ``coef`` are the
    classes entailment, neutral, contradiction."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[tuple[float, ...], ...]
    intercept: tuple[float, ...]

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Aggregator:
        return cls(
            tuple(raw["mean"]),
            tuple(raw["scale"]),
            tuple(tuple(row) for row in raw["coef"]),
            tuple(raw["intercept"]),
        )

    def probabilities(self, features: Sequence[float]) -> list[float]:
        x = [(f - m) / s for f, m, s in zip(features, self.mean, self.scale, strict=True)]
        logits = [
            b + sum(w * v for w, v in zip(row, x, strict=True))
            for row, b in zip(self.coef, self.intercept, strict=True)
        ]
        top = max(logits)
        exp = [math.exp(v - top) for v in logits]
        return [e / sum(exp) for e in exp]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The decision rule and its thresholds. ``or_join`` reads ``contradiction`` and
    ``entailment`` (minimum window probabilities); ``most_relevant`` reads ``relevance``
    (minimum 1 - P(neutral)), ``support`` (minimum stance share for entailment) and ``refute``
    (maximum stance share for contradiction; None: anything below ``support``).

    The bundled model ships calibrated values in ``nli_config.json`` (``BundledNLI.thresholds``).
    """

    contradiction: float = 0.5
    entailment: float = 0.5
    rule: Rule = "or_join"
    relevance: float = 0.5
    support: float = 0.5
    refute: float | None = None
    aggregator: Aggregator | None = None

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"unknown decision rule {self.rule!r}")
        if self.refute is not None and self.refute > self.support:
            raise ValueError("the refute threshold must not exceed the support threshold")
        if self.rule == "learned" and self.aggregator is None:
            raise ValueError("the learned rule needs an aggregator")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Thresholds:
        """From ``nli_config.json``'s ``thresholds`` object."""
        fields = dict(raw)
        aggregator = fields.pop("aggregator", None)
        return cls(**fields, aggregator=Aggregator.from_dict(aggregator) if aggregator else None)


@dataclass(frozen=True, slots=True)
class Decision:
    """The claim-level label, its confidence and which window decided it.

    ``window`` indexes the scores passed to ``decide``; for ``neutral`` it points at the most
    relevant window (least neutral), and it is None only when there were no windows.
    """

    label: NLILabel
    confidence: float
    window: int | None


def decide(scores: Sequence[NLIScores], thresholds: Thresholds = Thresholds()) -> Decision:
    """Decide a claim from the scores of its (window, claim) pairs, in window order."""
    if not scores:
        return Decision(NLILabel.NEUTRAL, 1.0, None)
    if thresholds.rule == "most_relevant":
        return _most_relevant(scores, thresholds)
    if thresholds.rule == "learned" and thresholds.aggregator is not None:
        return _learned(scores, thresholds.aggregator)
    contradicting = [
        i
        for i, s in enumerate(scores)
        if s.contradiction >= thresholds.contradiction and s.contradiction > s.entailment
    ]
    if contradicting:
        best = max(contradicting, key=lambda i: scores[i].contradiction)
        return Decision(NLILabel.CONTRADICTION, scores[best].contradiction, best)
    supporting = [i for i, s in enumerate(scores) if s.entailment >= thresholds.entailment]
    if supporting:
        best = max(supporting, key=lambda i: scores[i].entailment)
        return Decision(NLILabel.ENTAILMENT, scores[best].entailment, best)
    best = min(range(len(scores)), key=lambda i: scores[i].neutral)
    return Decision(NLILabel.NEUTRAL, scores[best].neutral, best)


def _most_relevant(scores: Sequence[NLIScores], thresholds: Thresholds) -> Decision:
    best = min(range(len(scores)), key=lambda i: scores[i].neutral)
    window = scores[best]
    relevance = 1.0 - window.neutral
    if relevance < thresholds.relevance:
        return Decision(NLILabel.NEUTRAL, window.neutral, best)
    stance = window.entailment / max(relevance, 1e-9)
    if stance >= thresholds.support:
        return Decision(NLILabel.ENTAILMENT, window.entailment, best)
    if thresholds.refute is not None and stance > thresholds.refute:
        # Relevant, but leaning neither way: not enough to call the claim refuted. The low
        # confidence lets the judge cascade take it where one is configured.
        return Decision(NLILabel.NEUTRAL, window.neutral, best)
    return Decision(NLILabel.CONTRADICTION, window.contradiction, best)


def _learned(scores: Sequence[NLIScores], aggregator: Aggregator) -> Decision:
    best = min(range(len(scores)), key=lambda i: scores[i].neutral)
    probabilities = aggregator.probabilities(claim_features(scores))
    k = max(range(3), key=lambda i: probabilities[i])
    return Decision(_LABELS[k], probabilities[k], best)
