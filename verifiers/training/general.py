"""Readers for the general-domain NLI sets (stage one of ``train-nli``): they teach the base
encoder inference itself before the biomedical sets specialise it.

Three-way sets (TaxiNLI, SNLI dev, Climate-FEVER, Factcheck-GPT; LingNLI and SICK in recipe
v2) train the whole relevance x stance head. Binary sets (DocNLI's MNLI and FEVER-NLI sides,
WiCE's ``not_supported``) say only "entailed or not": their negatives are ``NOT_ENTAILMENT``
and train P(entailment) alone (``verifiers.training.model.loss``). SNLI's test split is never
read here: it is the held-out check that stage one learned inference (``snli_test``). SummEdits
is left out: its documents run far past the 128-token window, so a truncated premise would
often lack what the summary says.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator
from pathlib import Path

from verifiers.training.examples import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    NOT_ENTAILMENT,
    Example,
)

_THREE_WAY = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}
# DocNLI is the largest set; a cap per file keeps stage one near an hour on two cores.
DOCNLI_CAP_PER_FILE = 5000


def _snli(data: Path, split: str) -> Iterator[Example]:
    folder = data / "general_nli" / "snli"
    premises = (folder / f"s1.{split}").read_text(encoding="utf-8").splitlines()
    hypotheses = (folder / f"s2.{split}").read_text(encoding="utf-8").splitlines()
    labels = (folder / f"labels.{split}").read_text(encoding="utf-8").splitlines()
    for i, (p, h, label) in enumerate(zip(premises, hypotheses, labels, strict=True)):
        if label.strip() in _THREE_WAY:
            yield Example(p.strip(), h.strip(), _THREE_WAY[label.strip()], "snli", f"snli:{i}")


def snli_dev(data: Path, rng: random.Random) -> Iterator[Example]:
    return _snli(data, "dev")


def snli_test(data: Path) -> list[Example]:
    """SNLI test: never trained on; stage one's accuracy here shows it learned inference."""
    return list(_snli(data, "test"))


def taxinli(data: Path, rng: random.Random) -> Iterator[Example]:
    path = data / "general_nli" / "taxinli" / "taxinli10k.tsv"
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            label = _THREE_WAY.get((row.get("label") or "").strip())
            if label is not None and row["prem"] and row["hyp"]:
                yield Example(row["prem"], row["hyp"], label, "taxinli", f"taxinli:{row['pairID']}")


def docnli(data: Path, rng: random.Random) -> Iterator[Example]:
    for path in sorted((data / "general_nli" / "docnli").glob("binary-*.txt")):
        lines = path.read_text(encoding="utf-8").splitlines()
        rng.shuffle(lines)
        for n, line in enumerate(lines[:DOCNLI_CAP_PER_FILE]):
            parts = line.split("\t")
            if len(parts) != 3:
                continue
            label, premise, hypothesis = parts
            yield Example(
                premise,
                hypothesis,
                ENTAILMENT if label == "entailment" else NOT_ENTAILMENT,
                "docnli",
                f"docnli:{path.stem}:{n}",
            )


_CLIMATE = {"SUPPORTS": ENTAILMENT, "REFUTES": CONTRADICTION, "NOT_ENOUGH_INFO": NEUTRAL}


def climate_fever(data: Path, rng: random.Random) -> Iterator[Example]:
    path = data / "climate_fever" / "climate-fever.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for evidence in row["evidences"]:
            yield Example(
                str(evidence["evidence"]),
                str(row["claim"]),
                _CLIMATE[str(evidence["evidence_label"])],
                "climatefever",
                f"climatefever:{row['claim_id']}",
            )


# "partially-support" is left out: part of the claim is not in the evidence, which is neither
# a clean support nor a contradiction.
_FACTCHECK = {"completely-support": ENTAILMENT, "refute": CONTRADICTION, "irrelevant": NEUTRAL}


def factcheck_gpt(data: Path, rng: random.Random) -> Iterator[Example]:
    path = data / "factcheck_gpt" / "claim_evidence_stance.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        label = _FACTCHECK.get(str(row["stance"]))
        if label is not None:
            claim = str(row["claim"])
            yield Example(str(row["evidence"]), claim, label, "factcheckgpt", f"fcgpt:{claim}")


def wice(data: Path, rng: random.Random) -> Iterator[Example]:
    """Supported chunks as entailment; ``not_supported`` as not entailed (binary)."""
    labels = {"supported": ENTAILMENT, "not_supported": NOT_ENTAILMENT}
    for path in sorted((data / "wice").glob("oracle_chunks_claim_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            label = labels.get(str(row["label"]))
            if label is not None:
                claim = str(row["claim"])
                yield Example(" ".join(row["evidence"]), claim, label, "wice", f"wice:{claim}")


def lingnli(data: Path, rng: random.Random) -> Iterator[Example]:
    """LingNLI's training rounds (three protocols, five rounds each; balanced three-way). The
    validation rounds are never read: like SNLI test, they stay free for a held-out check. A
    premise (``promptID``, from MultiNLI) is one group, so its pairs share a split side."""
    folder = data / "general_nli" / "lingnli"
    for path in sorted(folder.glob("*/train_round*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            label = _THREE_WAY.get(str(row.get("label", "")).strip())
            premise, hypothesis = str(row["premise"]).strip(), str(row["hypothesis"]).strip()
            if label is not None and premise and hypothesis:
                yield Example(premise, hypothesis, label, "lingnli", f"lingnli:{row['promptID']}")


def sick(data: Path, rng: random.Random) -> Iterator[Example]:
    """SICK: sentence pairs about pictures, written to test compositional inference (negation,
    quantifiers, word order). The file carries no split of its own, so all of it trains."""
    path = data / "general_nli" / "sick" / "SICK.txt"
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            label = _THREE_WAY.get((row.get("entailment_judgment") or "").strip().lower())
            a, b = (row["sentence_A"] or "").strip(), (row["sentence_B"] or "").strip()
            if label is not None and a and b:
                # SICK pairs many sentences both ways round: one group keeps both on one side.
                yield Example(a, b, label, "sick", "sick:" + " | ".join(sorted((a, b))))


GENERAL_READERS = {
    "taxinli": taxinli,
    "snli": snli_dev,
    "docnli": docnli,
    "climatefever": climate_fever,
    "factcheckgpt": factcheck_gpt,
    "wice": wice,
}
# Recipe v2's additions (``verifiers.training.recipe``): about 55k three-way pairs more.
GENERAL_READERS_V2 = {**GENERAL_READERS, "lingnli": lingnli, "sick": sick}
