"""Training examples at the level the runtime decides: (evidence window, claim, label)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# Label ids, in the order of the model's probability output.
ENTAILMENT = 0
NEUTRAL = 1
CONTRADICTION = 2
LABEL_NAMES: tuple[str, ...] = ("entailment", "neutral", "contradiction")
# Training-only label for binary sets (entailment vs not): "not entailed" may be neutral or
# contradicted, so it trains only the entailment side, P(entailment) = relevance x support.
NOT_ENTAILMENT = 3
# Share of PubMedQA and BioASQ questions kept for ``veriproxy eval answers``: never trained on.
ANSWER_EVAL_FRACTION = 0.3

# Dataset spellings → label id (the mapping in ../shared/data/README.md).
LABEL_OF: dict[str, int] = {
    "SUPPORT": ENTAILMENT,
    "SUPPORTS": ENTAILMENT,
    "SUPPORTED": ENTAILMENT,
    "ENTAILMENT": ENTAILMENT,
    "ACCURATE": ENTAILMENT,
    "CONTRADICT": CONTRADICTION,
    "REFUTE": CONTRADICTION,
    "REFUTES": CONTRADICTION,
    "REFUTED": CONTRADICTION,
    "CONTRADICTION": CONTRADICTION,
    "NEI": NEUTRAL,
    "NEUTRAL": NEUTRAL,
    "NOTENOUGHINFO": NEUTRAL,
    "NOT ENOUGH INFO": NEUTRAL,
}


@dataclass(frozen=True, slots=True)
class Example:
    """One training pair. ``group`` keys the claim so a split never leaks a claim across sides."""

    premise: str
    hypothesis: str
    label: int
    source: str
    group: str


# A dataset's pairs: (data directory, seeded generator) -> examples.
Reader = Callable[[Path, random.Random], Iterator[Example]]


def windows(sentences: Sequence[str], sizes: Sequence[int] = (1, 2)) -> Iterator[tuple[int, str]]:
    """Sliding windows of consecutive sentences, as (start index, text)."""
    for size in sizes:
        for start in range(max(len(sentences) - size + 1, 0)):
            yield start, " ".join(s.strip() for s in sentences[start : start + size])


def is_validation(group: str, fraction: float) -> bool:
    """Stable hash split by claim group, independent of run order and seed."""
    digest = hashlib.sha256(group.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < fraction


def is_answer_eval(group: str) -> bool:
    """Whether a question (``pubmedqa:PMID``, ``bioasq:ID``) belongs to the answer-level
    evaluation items; a salted hash, so it is independent of the validation split."""
    return is_validation(f"answers:{group}", ANSWER_EVAL_FRACTION)
