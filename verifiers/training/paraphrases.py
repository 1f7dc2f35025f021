"""Supports by paraphrase: sentences that restate evidence in their own words, so a correct but
reworded answer sentence learns to come out ``supported``.

- PubMedQA: each sentence of the long answer (the abstract's conclusion) against the window of
  the abstract's other sections that shares the most content words with it.
- BioASQ: each sentence of an ideal answer against its best-matching gold snippet.
- SciFact: article titles that state a finding against the best window of their own abstract.

A pair is kept only when enough of the sentence's content words appear in the premise, so the
premise plausibly carries what the sentence says. Questions picked for ``veriproxy eval
answers`` are never read here.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from verifiers.checks.normalise import content_tokens
from verifiers.training.benchmarks import split_sentences
from verifiers.training.examples import ENTAILMENT, Example, is_answer_eval, windows
from verifiers.training.sources import read_jsonl

# Titles that state a finding have a verb of effect or association.
_FINDING_VERB = re.compile(
    r"\b(is|are|was|were|reduces?|increases?|improves?|inhibits?|induces?|promotes?|regulates?"
    r"|predicts?|causes?|prevents?|enhances?|decreases?|suppresses?|activates?|associated"
    r"|correlates?|leads?|mediates?|requires?|affects?|protects?|impairs?|drives?|blocks?)\b",
    re.IGNORECASE,
)
MIN_OVERLAP = 0.5


def overlap(sentence: str, premise: str) -> float:
    """Share of the sentence's content words that the premise holds."""
    words = content_tokens(sentence)
    return len(words & content_tokens(premise)) / len(words) if words else 0.0


def best_window(sentence: str, sentences: Sequence[str]) -> tuple[str, float]:
    """The one- or two-sentence window sharing most content words with ``sentence``."""
    scored = [(overlap(sentence, text), text) for _, text in windows(sentences, (1, 2))]
    if not scored:
        return "", 0.0
    score, text = max(scored, key=lambda pair: (pair[0], -len(pair[1])))
    return text, score


def _pairs(
    sentences: Sequence[str], premises: Sequence[str], source: str, group: str
) -> Iterator[Example]:
    for sentence in sentences:
        if len(content_tokens(sentence)) < 4:
            continue
        premise, score = best_window(sentence, premises)
        if score >= MIN_OVERLAP:
            yield Example(premise, sentence, ENTAILMENT, source, group)


def pubmedqa_long_answers(data: Path, rng: random.Random) -> Iterator[Example]:
    rows = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    for pmid, row in rows.items():
        group = f"pubmedqa:{pmid}"
        if is_answer_eval(group) or row["final_decision"] == "maybe":
            continue
        context = [s for part in row["CONTEXTS"] for s in split_sentences(part)]
        yield from _pairs(split_sentences(row["LONG_ANSWER"]), context, "pubmedqa+para", group)


def bioasq_ideal_answers(data: Path, rng: random.Random) -> Iterator[Example]:
    seen: set[str] = set()
    for path in sorted((data / "bioasq").glob("*_golden.json")):
        for q in json.loads(path.read_text(encoding="utf-8"))["questions"]:
            body = q["body"].strip()
            if body in seen or is_answer_eval(f"bioasq:{body}"):
                continue
            seen.add(body)
            ideal = q.get("ideal_answer") or []
            answer = ideal[0] if isinstance(ideal, list) and ideal else str(ideal)
            snippets = [str(s["text"]) for s in q.get("snippets", [])]
            yield from _pairs(split_sentences(answer), snippets, "bioasq+para", f"bioasq:{q['id']}")


def scifact_titles(data: Path, rng: random.Random) -> Iterator[Example]:
    """Titles of abstracts that no SciFact dev claim cites (those stay benchmark-only)."""
    cited = {
        str(d)
        for row in read_jsonl(data / "scifact" / "claims_dev.jsonl")
        for d in row["cited_doc_ids"]  # type: ignore[attr-defined]
    }
    for doc in read_jsonl(data / "scifact" / "corpus.jsonl"):
        title = str(doc.get("title", "")).strip()
        if str(doc["doc_id"]) in cited:
            continue
        if title.endswith("?") or not _FINDING_VERB.search(title):
            continue
        abstract = [str(sentence) for sentence in doc["abstract"]]  # type: ignore[attr-defined]
        yield from _pairs([title], abstract, "scifact+title", f"title:{doc['doc_id']}")


PARAPHRASE_READERS = {
    "pubmedqa+para": pubmedqa_long_answers,
    "bioasq+para": bioasq_ideal_answers,
    "scifact+title": scifact_titles,
}
