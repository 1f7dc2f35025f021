"""The one interface every NLI backend implements (bundled ONNX, Hugging Face, LLM judge)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from verifiers._types import NLILabel
from verifiers.errors import NLIError as NLIError  # defined there, importable here


@dataclass(frozen=True, slots=True)
class NLIPair:
    """premise = an evidence window (1-3 abstract sentences); hypothesis = a claim."""

    premise: str
    hypothesis: str


@dataclass(frozen=True, slots=True)
class NLIScores:
    """Probabilities for one pair; they sum to 1."""

    entailment: float
    neutral: float
    contradiction: float

    @property
    def label(self) -> NLILabel:
        best = max(self.entailment, self.neutral, self.contradiction)
        if best == self.contradiction:
            return NLILabel.CONTRADICTION
        if best == self.entailment:
            return NLILabel.ENTAILMENT
        return NLILabel.NEUTRAL


@runtime_checkable
class NLIBackend(Protocol):
    """Scores a batch of pairs. Implementations are synchronous and CPU/GPU bound; callers run
    them off the event loop. ``version`` identifies the model for caches and reports."""

    name: str
    version: str

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]: ...
