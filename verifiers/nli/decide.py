"""Claim-level decisions from a claim's evidence windows, by one of two rules.

``or_join`` (the default for any backend): any confident contradiction decides
``contradiction``; else any confident entailment decides ``entailment``; else ``neutral``.
Contradiction goes first because one refuting sentence is enough to make a claim unsafe, while
support elsewhere in the abstract does not cancel it.

``most_relevant`` (the bundled model's calibrated rule): the window the model finds most
relevant (least neutral) decides. Below the relevance threshold the claim is ``neutral``;
otherwise the window's stance, P(entailment) / (P(entailment) + P(contradiction)), picks
``entailment`` at or above the support threshold and ``contradiction`` below it. It suits a
model whose head scores relevance and stance separately: the OR-join over twenty windows of an
abstract lets one noisy window decide, while the most relevant window is the one the claim is
about. On the bundled model it raised macro-F1 on SciFact dev, HealthVer and Check-COVID dev,
contradicted F1 included (docs/nli-model.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from verifiers._types import NLILabel
from verifiers.nli._base import NLIScores

Rule = Literal["or_join", "most_relevant"]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The decision rule and its thresholds. ``or_join`` reads ``contradiction`` and
    ``entailment`` (minimum window probabilities); ``most_relevant`` reads ``relevance``
    (minimum 1 - P(neutral)) and ``support`` (minimum stance share for entailment).

    The bundled model ships calibrated values in ``nli_config.json`` (``BundledNLI.thresholds``).
    """

    contradiction: float = 0.5
    entailment: float = 0.5
    rule: Rule = "or_join"
    relevance: float = 0.5
    support: float = 0.5

    def __post_init__(self) -> None:
        if self.rule not in ("or_join", "most_relevant"):
            raise ValueError(f"unknown decision rule {self.rule!r}")


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
    if window.entailment / max(relevance, 1e-9) >= thresholds.support:
        return Decision(NLILabel.ENTAILMENT, window.entailment, best)
    return Decision(NLILabel.CONTRADICTION, window.contradiction, best)
