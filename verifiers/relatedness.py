"""Whether a claim and the evidence the model says contradicts it are about the same thing.

The bundled NLI model learned SNLI's convention that two descriptions of unrelated scenes
contradict each other, so a sentence on another subject can come out ``contradicted``: an aside
of everyday English ("The boy is alone in the bathtub on the moon.") against a snippet of an
abstract, or a sentence from another answer (``veriproxy eval answers``' off-topic sentences:
16 of 863 everyday and 5 of 864 other-answer sentences, before this rule). A contradiction
needs a shared subject. It is measured as the cosine between the claim and the window(s) that
decided, by the bundled sentence encoder (all-MiniLM-L6-v2, the one dense retrieval uses);
below ``UNRELATED_BELOW`` the model's contradiction is set aside as ``unrelated``.

Shared words cannot tell this: HealthVer's claims say "coronavirus" and "warmer weather" where
their evidence says "COVID-19" and "temperature", and 12 of its right contradictions share no
content word with their evidence. Of the contradictions the engine draws on the dev sets
(SciFact, Check-COVID, HealthVer: 312) and on HealthVer's training claims (876), none has a
cosine under 0.2 but one training claim labelled not enough info (0.20).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from verifiers.windows import SentenceEncoder

# Below this cosine a claim and its contradicting evidence are on different subjects: a margin
# under the training claims' contradictions (0.2 and up); the off-topic sentences the model
# contradicted lay at -0.06 to 0.17 (19 of 21 under 0.15).
UNRELATED_BELOW = 0.15


class Relatedness:
    """How close a claim is to the evidence texts, by the encoder's cosine similarity."""

    def __init__(self, encoder: SentenceEncoder, below: float = UNRELATED_BELOW) -> None:
        self.encoder = encoder
        self.below = below

    def similarity(self, claim: str, texts: Sequence[str]) -> float:
        """The largest cosine between ``claim`` and any of ``texts``."""
        vectors = self.encoder.encode([claim, *texts])
        return float(np.max(vectors[1:] @ vectors[0]))

    def unrelated(self, claim: str, texts: Sequence[str]) -> float | None:
        """The similarity when it is below ``below`` (the claim is about something else), else
        None."""
        similarity = self.similarity(claim, texts)
        return similarity if similarity < self.below else None
