"""Claim-level evaluation items: a claim against one whole abstract (or evidence paragraph),
decided through its sentence windows with the OR-join, as the runtime does."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verifiers.training.examples import LABEL_OF, NEUTRAL, is_validation
from verifiers.training.sources import read_corpus, read_jsonl

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
    corpus = read_corpus(data / "scifact" / "corpus.jsonl", "doc_id")
    for row in read_jsonl(data / "scifact" / f"claims_{split}.jsonl"):
        evidence: dict[str, list[dict[str, object]]] = row["evidence"]  # type: ignore[assignment]
        for doc_id in row["cited_doc_ids"]:  # type: ignore[attr-defined]
            sentences = corpus.get(str(doc_id))
            if not sentences:
                continue
            sets = evidence.get(str(doc_id), [])
            label = LABEL_OF[str(sets[0]["label"])] if sets else NEUTRAL
            yield AbstractItem(str(row["claim"]), tuple(sentences), label, f"scifact:{row['id']}")


def check_covid(data: Path, split: str = "dev") -> Iterator[AbstractItem]:
    folder = data / "check_covid"
    corpus = {str(d["cord_id"]): list(d["abstract"]) for d in read_jsonl(folder / "corpus.json")}  # type: ignore[call-overload]
    for row in read_jsonl(folder / f"covidCheck_{split}_composed+extracted.json"):
        sentences = corpus.get(str(row["cord_id"]))
        if sentences:
            yield AbstractItem(
                str(row["claim"]).strip(),
                tuple(sentences),
                LABEL_OF[str(row["label"])],
                f"checkcovid:{row['cord_id']}",
            )


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
    folder = data / "healthver_train"
    corpus = read_corpus(folder / "corpus.jsonl", "doc_id")
    for row in read_jsonl(folder / "claims_train.jsonl"):
        evidence: dict[str, list[dict[str, object]]] = row["evidence"]  # type: ignore[assignment]
        for doc_id in row["doc_ids"]:  # type: ignore[attr-defined]
            sentences = corpus.get(str(doc_id))
            if sentences:
                sets = evidence.get(str(doc_id), [])
                label = LABEL_OF[str(sets[0]["label"])] if sets else NEUTRAL
                group = f"healthver:{row['id']}"
                yield AbstractItem(str(row["claim"]).strip(), tuple(sentences), label, group)


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
