"""Readers that turn the public datasets in ../shared/data into window-level ``Example``s.

Each reader yields supported/contradicted pairs from gold rationale windows and neutral pairs
from non-rationale windows of the same abstract (hard) or of another one (easy). HealthVer is
not read here: its dev split stays held out for ``veriproxy eval nli --dataset healthver``;
its training split is (``healthver_train``), minus any claim the dev split also holds.
PubMedQA and BioASQ questions picked for ``veriproxy eval answers`` (``is_answer_eval``) are
never read for training.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifiers.training.claims import question_to_claims
from verifiers.training.examples import (
    CONTRADICTION,
    ENTAILMENT,
    LABEL_OF,
    NEUTRAL,
    Example,
    is_answer_eval,
)

csv.field_size_limit(10**7)


def read_jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_corpus(path: Path, key: str) -> dict[str, list[str]]:
    """Abstracts as sentence lists, keyed by document id (as a string)."""
    return {str(doc[key]): list(doc["abstract"]) for doc in read_jsonl(path)}  # type: ignore[call-overload]


Rationale = tuple[tuple[int, ...], int]  # gold sentence indices into the abstract, and a label


@dataclass(frozen=True, slots=True)
class ClaimDoc:
    """A claim against one abstract it cites, with the gold rationales in it: how training
    (window examples, here) and evaluation (claim-level items, ``benchmarks``) both read the
    claim datasets."""

    claim: str  # as the dataset writes it
    group: str  # the claim's (or, for Check-COVID, the abstract's) id: splits never cut it
    sentences: tuple[str, ...]
    rationales: tuple[Rationale, ...]

    @property
    def label(self) -> int:
        """The claim's label for the whole abstract: its first rationale's; no rationale is
        not enough information (neutral)."""
        return self.rationales[0][1] if self.rationales else NEUTRAL


def _rationales(sets: Sequence[dict[str, object]]) -> tuple[Rationale, ...]:
    """SciFact-format evidence sets (``sentences``, ``label``) of one abstract."""
    return tuple(
        (tuple(e["sentences"]), LABEL_OF[str(e["label"])])  # type: ignore[arg-type]
        for e in sets
    )


def scifact_docs(data: Path, split: str) -> Iterator[ClaimDoc]:
    """SciFact: each claim against each abstract it cites (one with no rationale: neutral)."""
    corpus = read_corpus(data / "scifact" / "corpus.jsonl", "doc_id")
    for row in read_jsonl(data / "scifact" / f"claims_{split}.jsonl"):
        evidence: dict[str, list[dict[str, object]]] = row["evidence"]  # type: ignore[assignment]
        for doc_id in row["cited_doc_ids"]:  # type: ignore[attr-defined]
            sentences = corpus.get(str(doc_id))
            if sentences:
                rationales = _rationales(evidence.get(str(doc_id), []))
                claim, group = str(row["claim"]), f"scifact:{row['id']}"
                yield ClaimDoc(claim, group, tuple(sentences), rationales)


def check_covid_docs(data: Path, split: str) -> Iterator[ClaimDoc]:
    """Check-COVID: each claim against its one abstract, its evidence set as the rationale."""
    folder = data / "check_covid"
    corpus = {str(d["cord_id"]): list(d["abstract"]) for d in read_jsonl(folder / "corpus.json")}  # type: ignore[call-overload]
    for row in read_jsonl(folder / f"covidCheck_{split}_composed+extracted.json"):
        sentences = corpus.get(str(row["cord_id"]))
        if not sentences:
            continue
        indices = tuple(int(e["sent_index"]) for e in row["evidence_set"])  # type: ignore[attr-defined]
        rationale = (indices, LABEL_OF[str(row["label"])])
        # The group is the abstract: Check-COVID writes several claims per abstract and source
        # sentence, so splitting by abstract keeps near-duplicate claims on one side.
        group = f"checkcovid:{row['cord_id']}"
        yield ClaimDoc(str(row["claim"]), group, tuple(sentences), (rationale,))


def healthver_train_docs(data: Path) -> Iterator[ClaimDoc]:
    """HealthVer's training split (MultiVerS format): each claim against each listed passage."""
    folder = data / "healthver_train"
    corpus = read_corpus(folder / "corpus.jsonl", "doc_id")
    for row in read_jsonl(folder / "claims_train.jsonl"):
        evidence: dict[str, list[dict[str, object]]] = row["evidence"]  # type: ignore[assignment]
        for doc_id in row["doc_ids"]:  # type: ignore[attr-defined]
            sentences = corpus.get(str(doc_id))
            if sentences:
                rationales = _rationales(evidence.get(str(doc_id), []))
                claim, group = str(row["claim"]).strip(), f"healthver:{row['id']}"
                yield ClaimDoc(claim, group, tuple(sentences), rationales)


def _rationale_windows(sentences: Sequence[str], indices: Sequence[int]) -> list[str]:
    """The gold rationale as one window, plus each rationale sentence with its neighbour."""
    idx = sorted(i for i in set(indices) if 0 <= i < len(sentences))
    if not idx:
        return []
    out = [" ".join(sentences[i] for i in idx[:3])]
    for i in idx[:2]:
        if len(idx) > 1 or i + 1 < len(sentences):
            j = i + 1 if i + 1 < len(sentences) else i - 1
            if j >= 0:
                lo, hi = sorted((i, j))
                out.append(f"{sentences[lo]} {sentences[hi]}")
    return list(dict.fromkeys(out))


def _other_windows(
    sentences: Sequence[str], used: set[int], rng: random.Random, k: int
) -> list[str]:
    """Up to ``k`` one- or two-sentence windows that avoid every rationale sentence (and its
    direct neighbours, which often restate it)."""
    blocked = used | {i + 1 for i in used} | {i - 1 for i in used}
    free = [i for i in range(len(sentences)) if i not in blocked]
    rng.shuffle(free)
    out = []
    for i in free[:k]:
        if i + 1 < len(sentences) and i + 1 not in blocked and rng.random() < 0.5:
            out.append(f"{sentences[i]} {sentences[i + 1]}")
        else:
            out.append(sentences[i])
    return out


def _claim_doc_examples(
    claim: str,
    group: str,
    source: str,
    sentences: Sequence[str],
    rationales: Sequence[tuple[Sequence[int], int]],
    rng: random.Random,
    neutral_k: int = 2,
) -> Iterator[Example]:
    used: set[int] = set()
    for indices, label in rationales:
        used.update(indices)
        for window in _rationale_windows(sentences, indices):
            yield Example(window, claim, label, source, group)
    for window in _other_windows(sentences, used, rng, neutral_k):
        yield Example(window, claim, NEUTRAL, source, group)


def scifact(data: Path, rng: random.Random, split: str = "train") -> Iterator[Example]:
    for doc in scifact_docs(data, split):
        yield from _claim_doc_examples(
            doc.claim, doc.group, "scifact", doc.sentences, doc.rationales, rng
        )


def check_covid(data: Path, rng: random.Random, split: str = "train") -> Iterator[Example]:
    for doc in check_covid_docs(data, split):
        yield from _claim_doc_examples(
            doc.claim, doc.group, "checkcovid", doc.sentences, doc.rationales, rng, 1
        )


def covidfact(data: Path, rng: random.Random) -> Iterator[Example]:
    for row in read_jsonl(data / "covidfact" / "COVIDFACT_dataset.jsonl"):
        evidence = [str(s) for s in row["evidence"]]  # type: ignore[attr-defined]
        if not evidence:
            continue
        claim = str(row["claim"])
        claim = claim[0].upper() + claim[1:]
        group = f"covidfact:{evidence[0][:80]}"
        yield Example(
            " ".join(evidence[:2]), claim, LABEL_OF[str(row["label"])], "covidfact", group
        )


_LEADING_ANSWER = re.compile(r"^\s*(yes|no)\b[\s,.;:-]*", re.IGNORECASE)


def _yes_no_pairs(
    question: str, premise: str, answer: str, source: str, group: str
) -> Iterator[Example]:
    claims = question_to_claims(question)
    if claims is None or answer not in {"yes", "no"}:
        return
    positive, negative = claims
    premise = _LEADING_ANSWER.sub("", premise).strip()
    if not premise:
        return
    yes = answer == "yes"
    yield Example(premise, positive, ENTAILMENT if yes else CONTRADICTION, source, group)
    yield Example(premise, negative, CONTRADICTION if yes else ENTAILMENT, source, group)


def pubmedqa(data: Path, rng: random.Random) -> Iterator[Example]:
    """Questions as claims against the abstract's conclusion (its long answer)."""
    rows = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    items = [(pmid, row) for pmid, row in rows.items() if not is_answer_eval(f"pubmedqa:{pmid}")]
    for pmid, row in items:
        group = f"pubmedqa:{pmid}"
        yield from _yes_no_pairs(
            row["QUESTION"], row["LONG_ANSWER"], row["final_decision"], "pubmedqa", group
        )
        claims = question_to_claims(row["QUESTION"])
        if claims is not None:
            _, other = rng.choice(items)
            yield Example(other["LONG_ANSWER"], claims[0], NEUTRAL, "pubmedqa", group)


def bioasq(data: Path, rng: random.Random) -> Iterator[Example]:
    """Yes/no questions against their ideal answers (training only; never copied)."""
    seen: set[str] = set()
    for path in sorted((data / "bioasq").glob("*_golden.json")):
        questions = json.loads(path.read_text(encoding="utf-8"))["questions"]
        for q in questions:
            group = f"bioasq:{q['id']}"
            held = is_answer_eval(f"bioasq:{q['body'].strip()}")
            if q.get("type") != "yesno" or q["body"] in seen or held:
                continue
            seen.add(q["body"])
            ideal = q.get("ideal_answer") or []
            premise = ideal[0] if isinstance(ideal, list) and ideal else str(ideal)
            yield from _yes_no_pairs(
                q["body"], premise, str(q["exact_answer"]).lower(), "bioasq", group
            )


def nli4ct(data: Path, rng: random.Random) -> Iterator[Example]:
    """Single-trial statements against their evidence lines in the trial report."""
    folder = data / "nli4ct"
    for row in json.loads((folder / "train.json").read_text(encoding="utf-8")).values():
        if row.get("Type") != "Single":
            continue
        report = json.loads((folder / "CT_json" / f"{row['Primary_id']}.json").read_text("utf-8"))
        lines = [str(s).strip() for s in report.get(row["Section_id"], [])]
        evidence = [lines[i] for i in row.get("Primary_evidence_index", []) if i < len(lines)]
        if evidence:
            yield Example(
                " ".join(evidence[:6]),
                str(row["Statement"]),
                LABEL_OF[str(row["Label"]).upper()],
                "nli4ct",
                f"nli4ct:{row['Primary_id']}",
            )


def citation_integrity(data: Path, rng: random.Random) -> Iterator[Example]:
    """Citing sentences against cited abstracts: ACCURATE → supported, CONTRADICT → contradicted."""
    folder = data / "citation_integrity"
    corpus = read_corpus(folder / "corpus_bm25_reduced.jsonl", "doc_id")
    for row in read_jsonl(folder / "claims-train.jsonl"):
        claim = re.sub(r"\s*\[[^\]]*<\|[^\]]*\]", "", str(row["claim"])).strip()
        evidence: dict[str, list[dict[str, object]]] = row["evidence"]  # type: ignore[assignment]
        for doc_id, sets in evidence.items():
            sentences = corpus.get(doc_id)
            if not sentences:
                continue
            rationales = [
                (list(e["sentences"]), LABEL_OF[str(e["label"])])  # type: ignore[call-overload]
                for e in sets
                if str(e["label"]) in {"ACCURATE", "CONTRADICT"}
            ]
            if rationales:
                yield from _claim_doc_examples(
                    claim, f"citint:{row['id']}", "citint", sentences, rationales[:2], rng, 1
                )


def normalised_claim(text: str) -> str:
    """A claim's text for matching across files (case, spacing and the final stop aside)."""
    return " ".join(text.lower().split()).strip(" .")


def healthver_train(data: Path, rng: random.Random) -> Iterator[Example]:
    """HealthVer's training split (MultiVerS format); claims also in the dev split are dropped."""
    with (data / "healthver" / "healthver_dev.csv").open(encoding="utf-8", newline="") as f:
        held_out = {normalised_claim(row["claim"]) for row in csv.DictReader(f)}
    for doc in healthver_train_docs(data):
        if normalised_claim(doc.claim) not in held_out:
            yield from _claim_doc_examples(
                doc.claim, doc.group, "healthver", doc.sentences, doc.rationales, rng, 1
            )


READERS = {
    "scifact": scifact,
    "checkcovid": check_covid,
    "covidfact": covidfact,
    "pubmedqa": pubmedqa,
    "bioasq": bioasq,
    "nli4ct": nli4ct,
    "citint": citation_integrity,
    "healthver": healthver_train,
}
