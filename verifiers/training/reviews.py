"""Reviewers' labels as NLI data: the rows ``veriproxy review export`` writes (the evidence span
that decided an answer sentence as ``premise``, the sentence as ``hypothesis``, the reviewers'
verdict as an NLI label in ``expected``).

Every row is keyed by its request (``group = "review:<request id>"``), so the hash split puts all
of one answer's sentences on the same side: no answer is in both training and evaluation. Rows
without an evidence span, or whose verdict says nothing about support (an uncited sentence, a
fabricated citation), are left out.
"""

from __future__ import annotations

import json
from pathlib import Path

from verifiers.errors import ReviewFileError
from verifiers.training.benchmarks import AbstractItem
from verifiers.training.examples import LABEL_OF, Example

SOURCE = "reviews"


def review_examples(path: Path) -> list[Example]:
    """The usable rows as training pairs."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            premise, hypothesis = str(row["premise"]), str(row["hypothesis"])
            expected, request = row["expected"], str(row["request_id"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ReviewFileError(f"{path}:{number}: not a review row ({exc})") from None
        if expected is None or not premise.strip() or not hypothesis.strip():
            continue
        label = LABEL_OF.get(str(expected).upper())
        if label is None:
            raise ReviewFileError(f"{path}:{number}: unknown label {expected!r}")
        out.append(Example(premise, hypothesis, label, SOURCE, f"review:{request}"))
    return out


def review_items(path: Path) -> list[AbstractItem]:
    """The usable rows as claim-level evaluation items (the claim against its one span)."""
    return [
        AbstractItem(e.hypothesis, (e.premise,), e.label, e.group) for e in review_examples(path)
    ]
