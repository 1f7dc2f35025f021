"""Counting the NLI pairs a verifier asks for, without touching the engine: the evaluation
puts :class:`CountingNLI` in place of ``verifier.nli``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifiers.nli import NLIBackend, NLIPair, NLIScores


class CountingNLI:
    """An :class:`~verifiers.nli.NLIBackend` that scores with ``inner`` and counts the pairs
    (``pairs``) and the calls (``calls``) it was given."""

    def __init__(self, inner: NLIBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.pairs = 0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        # What else the engine or the judge cascade reads of a backend (thresholds, the
        # model's directory and window sizes) is the wrapped backend's.
        if name == "inner":  # not yet set (a half-built or copied instance)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        self.pairs += len(pairs)
        self.calls += 1
        return self.inner.predict(pairs)
