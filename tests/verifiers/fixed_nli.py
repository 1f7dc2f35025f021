"""NLI backends whose scores are fixed or scripted, so that what the engine's rules and the
evaluation's counting do shows on its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from verifiers.nli import NLIPair, NLIScores

ENTAILS = NLIScores(0.98, 0.01, 0.01)
CONTRADICTS = NLIScores(0.01, 0.01, 0.98)


class FixedNLI:
    """Scores every pair ``scores``."""

    name = "fixed"

    def __init__(self, scores: NLIScores) -> None:
        self.scores = scores
        self.version = f"fixed-{scores}"

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        return [self.scores for _ in pairs]


class ScriptedNLI:
    """Contradicts the pairs ``contradicts`` picks and entails the others: the artifact of the
    small model a rule answers. Keeps every pair it was asked."""

    name = "scripted"

    def __init__(self, contradicts: Callable[[NLIPair], bool], version: str) -> None:
        self.contradicts = contradicts
        self.version = version
        self.pairs: list[NLIPair] = []

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        self.pairs += pairs
        return [CONTRADICTS if self.contradicts(p) else ENTAILS for p in pairs]
