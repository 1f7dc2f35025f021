"""Claim-level evaluation items: a claim against one whole abstract (or evidence paragraph),
decided through its sentence windows with the OR-join, as the runtime does."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verifiers.training.examples import LABEL_OF, is_validation
from verifiers.training.sources import check_covid_docs, healthver_train_docs, scifact_docs

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"'])")


@dataclass(frozen=True, slots=True)
class AbstractItem:
    claim: str
    sentences: tuple[str, ...]
    label: int
    group: str


def split_sentences(text: str) -> tuple[str, ...]:
    """A plain splitter for evidence paragraphs that come unsegmented (HealthVer)."""
    return tuple(s.strip() for s in _SENTENCE_END.split(text) if s.strip())


def scifact(data: Path, split: str = "dev") -> Iterator[AbstractItem]:
    """VerifAI's protocol: the claim against each cited abstract; no rationale → NEI."""
    for doc in scifact_docs(data, split):
        yield AbstractItem(doc.claim, doc.sentences, doc.label, doc.group)


def check_covid(data: Path, split: str = "dev") -> Iterator[AbstractItem]:
    for doc in check_covid_docs(data, split):
        yield AbstractItem(doc.claim.strip(), doc.sentences, doc.label, doc.group)


def healthver(data: Path) -> Iterator[AbstractItem]:
    """HealthVer's released validation part; never used in training, so it is held out."""
    with (data / "healthver" / "healthver_dev.csv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            sentences = split_sentences(row["evidence"])
            if sentences:
                yield AbstractItem(
                    row["claim"].strip(),
                    sentences,
                    LABEL_OF[row["label"].upper()],
                    f"healthver:{row['id']}",
                )


def healthver_train(data: Path) -> Iterator[AbstractItem]:
    """HealthVer's training split at claim level: the claim against each listed passage."""
    for doc in healthver_train_docs(data):
        yield AbstractItem(doc.claim, doc.sentences, doc.label, doc.group)


def validation(data: Path, fraction: float) -> list[AbstractItem]:
    """Claim-level items whose claims fell in the training pipeline's validation split: used to
    calibrate the decision rule without touching any benchmark split."""
    items = [*scifact(data, "train"), *check_covid(data, "train"), *healthver_train(data)]
    return [item for item in items if is_validation(item.group, fraction)]


DATASETS = {
    "scifact": lambda data: list(scifact(data, "dev")),
    "healthver": lambda data: list(healthver(data)),
    "checkcovid": lambda data: list(check_covid(data, "dev")),
}
