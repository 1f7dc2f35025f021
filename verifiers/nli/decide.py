"""The OR-join over a claim's evidence windows.

Any confident contradiction decides ``contradiction``; else any confident entailment decides
``entailment``; else ``neutral``. Contradiction goes first because one refuting sentence is
enough to make a claim unsafe, while support elsewhere in the abstract does not cancel it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifiers._types import NLILabel
from verifiers.nli._base import NLIScores


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Minimum window probabilities for a contradiction or an entailment to decide the claim.

    The bundled model ships calibrated values in ``nli_config.json`` (``BundledNLI.thresholds``).
    """

    contradiction: float = 0.5
    entailment: float = 0.5


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
