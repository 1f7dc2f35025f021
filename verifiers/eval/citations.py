"""Citation and number checks: does the verifier catch fabricated references and altered numbers?

Answers are built from SciFact and Check-COVID dev claims that their cited abstract supports,
and from those claims' rationale sentences restated verbatim: three sentences per answer, each
citing its abstract in one of the accepted formats, with the cited abstracts plus two unrelated
ones as the evidence. Then, with a fixed seed, errors are injected:

- fabricated citations: a third of the sentences cite a random PMID that is not in the evidence
  (gold: ``invalid_citation``);
- altered numbers: every claim whose quantity the cited abstract states exactly gets the number
  changed (5 mg → 50 mg, 30% → 3%, 12 → 19); the untouched numeric claims are the negatives.

Measured (``veriproxy eval citations`` prints it): precision and recall of invalid-citation
detection (sentence verdict) and of number change detection (a failed ``numbers`` check), plus
how many altered sentences end up ``contradicted``. Check-COVID abstracts have CORD-19 ids;
they get numeric stand-in PMIDs.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifiers._types import Evidence, ResponseReport, Verdict

CLAIMS_PER_ANSWER = 3
DISTRACTORS = 2
FORMATS = ("[PMID:{}]", "[PMID {}]", "(PMID: {})", "[{}]")
_STAND_IN_BASE = 90_000_000  # numeric ids for Check-COVID's CORD-19 documents


@dataclass(frozen=True, slots=True)
class Item:
    """One answer sentence: a claim, the abstract it cites, and what was injected."""

    claim: str
    pmid: str
    fabricated: bool = False
    altered: bool = False
    numeric: bool = False


@dataclass(slots=True)
class Score:
    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0
    true_neg: int = 0

    def add(self, gold: bool, predicted: bool) -> None:
        self.true_pos += gold and predicted
        self.false_pos += predicted and not gold
        self.false_neg += gold and not predicted
        self.true_neg += not gold and not predicted

    def line(self, name: str) -> str:
        p = self.true_pos / max(self.true_pos + self.false_pos, 1)
        r = self.true_pos / max(self.true_pos + self.false_neg, 1)
        positives = self.true_pos + self.false_neg
        negatives = self.false_pos + self.true_neg
        return (
            f"{name:<22} precision {p:.3f}  recall {r:.3f}  "
            f"(positives {positives}, negatives {negatives})"
        )


def load_supported(data_dir: Path) -> tuple[list[tuple[str, str]], dict[str, Evidence]]:
    """(sentence, pmid) pairs that the cited abstract supports (each claim and, restated
    verbatim, its rationale sentences, which carry most of the numbers), and the abstracts."""
    from verifiers.windows import make_evidence

    docs: dict[str, Evidence] = {}
    with (data_dir / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        scifact = {str(d["doc_id"]): d for d in map(json.loads, fh)}
    pairs: list[tuple[str, str]] = []
    with (data_dir / "scifact" / "claims_dev.jsonl").open(encoding="utf-8") as fh:
        for claim in map(json.loads, fh):
            for doc_id, sets in claim["evidence"].items():
                support = [s for s in sets if s["label"] == "SUPPORT"]
                if support:
                    doc = scifact[doc_id]
                    docs[doc_id] = make_evidence(doc_id, doc["title"], doc["abstract"])
                    pairs.append((claim["claim"].strip(), doc_id))
                    rationale = {i for s in support for i in s["sentences"]}
                    pairs.extend((doc["abstract"][i].strip(), doc_id) for i in sorted(rationale))
    corpus_path = data_dir / "check_covid" / "corpus.json"
    with corpus_path.open(encoding="utf-8") as fh:
        covid = {d["cord_id"]: d for d in map(json.loads, fh)}
    stand_in = {cord: str(_STAND_IN_BASE + i) for i, cord in enumerate(sorted(covid))}
    dev = data_dir / "check_covid" / "covidCheck_dev_composed+extracted.json"
    with dev.open(encoding="utf-8") as fh:
        for claim in map(json.loads, fh):
            doc = covid.get(claim["cord_id"])
            if claim["label"] != "SUPPORT" or doc is None:
                continue
            pmid = stand_in[claim["cord_id"]]
            docs[pmid] = make_evidence(pmid, doc["title"], doc["abstract"])
            pairs.append((claim["claim"].strip(), pmid))
            rationale = {e["sent_index"] for e in claim["evidence_set"] if e["type"] == "PRIMARY"}
            pairs.extend((doc["abstract"][i].strip(), pmid) for i in sorted(rationale))
    return pairs, docs


def alter_number(claim: str, abstract: str, rng: random.Random) -> str | None:
    """The claim with its first quantity that the abstract states changed, or None."""
    from verifiers.checks import extract_quantities

    stated = extract_quantities(abstract)
    for quantity in extract_quantities(claim):
        if any(quantity.matches(q) for q in stated) and quantity.low == quantity.high:
            number = re.match(r"[\d.,]+", quantity.text)
            if number is None:
                continue
            value = quantity.low
            if value >= 10 and rng.random() < 0.5:
                new = value / 10
            elif rng.random() < 0.5:
                new = value * 10
            else:
                new = value + rng.randint(2, 9)
            text = f"{new:g}" if quantity.decimals == 0 else f"{new:.{quantity.decimals}f}"
            return claim[: quantity.start] + text + claim[quantity.start + number.end() :]
    return None


def build_answers(
    pairs: Sequence[tuple[str, str]], docs: dict[str, Evidence], seed: int
) -> Iterator[tuple[list[Item], list[Evidence]]]:
    rng = random.Random(seed)
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    all_ids = sorted(docs)
    for start in range(0, len(shuffled) - CLAIMS_PER_ANSWER + 1, CLAIMS_PER_ANSWER):
        items = []
        for claim, pmid in shuffled[start : start + CLAIMS_PER_ANSWER]:
            altered = alter_number(claim, docs[pmid].abstract, rng)
            numeric = altered is not None
            if altered is not None and rng.random() < 0.5:
                items.append(Item(altered, pmid, altered=True, numeric=True))
            else:
                items.append(Item(claim, pmid, numeric=numeric))
        cited = list(dict.fromkeys(i.pmid for i in items))
        others = [d for d in rng.sample(all_ids, DISTRACTORS + len(cited)) if d not in cited]
        evidence = [docs[d] for d in cited + others[:DISTRACTORS]]
        items = [
            Item(i.claim, str(rng.randint(10_000_000, 39_999_999)), True, i.altered, i.numeric)
            if rng.random() < 1 / 3
            else i
            for i in items
        ]
        yield items, evidence


def render_answer(items: Sequence[Item], evidence: Sequence[Evidence], rng: random.Random) -> str:
    order = [e.pmid for e in evidence]
    sentences = []
    for item in items:
        form = rng.choice(FORMATS)
        ref = (
            str(order.index(item.pmid) + 1) if form == "[{}]" and item.pmid in order else item.pmid
        )
        sentences.append(f"{item.claim.rstrip('. ')} {form.format(ref)}.")
    return " ".join(sentences)


def score(items: Sequence[Item], report: ResponseReport, scores: dict[str, Score]) -> bool:
    """Add one answer to the scores; False (and nothing added) when a claim did not come out as
    exactly one sentence."""
    if len(report.sentences) != len(items):
        return False
    for item, sentence in zip(items, report.sentences, strict=True):
        scores["invalid citations"].add(
            item.fabricated, sentence.verdict is Verdict.INVALID_CITATION
        )
        if not item.numeric or item.fabricated:
            continue
        failed = any(c.name == "numbers" and not c.passed for c in sentence.checks)
        scores["altered numbers"].add(item.altered, failed)
        if item.altered:
            scores["altered → contradicted"].add(True, sentence.verdict is Verdict.CONTRADICTED)
    return True


SCORE_NAMES = ("invalid citations", "altered numbers", "altered → contradicted")


def evaluate(
    verify: Callable[[str, Sequence[Evidence]], ResponseReport],
    answers: Iterable[tuple[list[Item], list[Evidence]]],
    seed: int,
) -> tuple[dict[str, Score], int]:
    """Each answer rendered (citation formats drawn with ``seed``), verified and scored: the
    scores by name, and how many answers were skipped (a claim split into several sentences)."""
    rng = random.Random(seed)
    scores = {name: Score() for name in SCORE_NAMES}
    skipped = 0
    for items, evidence in answers:
        report = verify(render_answer(items, evidence, rng), evidence)
        skipped += not score(items, report, scores)
    return scores, skipped
