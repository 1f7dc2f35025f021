"""The real-text sweep: every text of every corpus in ../shared/data through the deterministic
checks: no exception on real Unicode (µ/μ, middle-dot decimals, full-width forms, odd
punctuation, long sentences).

Each sentence of each text is checked as a claim against the text's sentences as evidence:
every quantity, labelled number and entity (a generic one such as "FDA" too) it names must
then be found, no name stands in another's place, and no direction flip or aligned change can
fire (the sentence, and each claim cut from it, aligns with itself and points its own way).
The negation check runs too (no exception; its own cases are in test_check_negation.py), and
every sentence read without its negation words is affirmative. Each sentence is also told
check-worthy or not (as a sentence and as a heading) and cut into claims, every claim a span
inside it.

The sweep is the suite's longest job, and pytest-xdist gives a test file to one worker whole,
so it runs as ``SHARDS`` files (``test_real_text_sweep_<n>.py``), shard ``n`` taking every
``SHARDS``-th text of each source: the workers share it evenly whatever a source's size.

The suite reads at most ``PER_SOURCE`` texts of a source, spread over the whole of it (every
k-th): the sources of more than that many (SciFact's corpus, NLI4CT's trial reports, DocNLI,
...) held 257k of its 416k texts and over half its time, and the suite ran past 25 minutes.
Every source is still read, the small ones whole, about 238k texts in all.
``VERIPROXY_SWEEP_ALL=1`` reads every text of every source (about 16 minutes on two workers):
run it after changing a check."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

from verifiers.checks import (
    check_alignment,
    check_direction,
    check_negation,
    check_numbers,
    extract_quantities,
)
from verifiers.checks.direction import check_comparison
from verifiers.checks.entities import check_cited_term, check_entities, check_generic_names
from verifiers.checks.name_slots import swapped_names
from verifiers.checks.names import specific_names
from verifiers.checks.negation import is_negated, negated_alike, without_negation
from verifiers.checks.numbers import check_labelled_numbers, in_evidence_words
from verifiers.checkworthy import bare_term, is_checkworthy, list_lead
from verifiers.claims import RuleDecomposer
from verifiers.eval.data import data_dir
from verifiers.markup import without_emphasis
from verifiers.roles import load_roles
from verifiers.segment import segment, words_outside
from verifiers.training.benchmarks import split_sentences

DATA = data_dir(relative_to=Path(__file__).parents[3])
SHARDS = 3
PER_SOURCE = 6000
SWEEP_ALL = os.environ.get("VERIPROXY_SWEEP_ALL") == "1"
MIN_CHARS = 20
csv.field_size_limit(10**8)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        if len(value) >= MIN_CHARS:
            yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _texts(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8", errors="strict")
    if path.suffix in {".json", ".jsonl"}:
        try:
            yield from _strings(json.loads(text))
        except json.JSONDecodeError:  # JSON lines, whatever the file's ending says
            for line in text.splitlines():
                if line.strip():
                    yield from _strings(json.loads(line))
    elif path.suffix in {".csv", ".tsv", ".txt"} or path.name.startswith(("s1.", "s2.")):
        delimiter = "," if path.suffix == ".csv" else "\t"
        for row in csv.reader(text.splitlines(), delimiter=delimiter):
            yield from (cell for cell in row if len(cell) >= MIN_CHARS)


def _is_text(path: Path) -> bool:
    suffixes = {".json", ".jsonl", ".csv", ".tsv", ".txt"}
    readme = "readme" in path.name.lower() or path.name == "LICENSE"
    return (
        path.is_file()
        and not readme
        and (path.suffix in suffixes or path.name.startswith(("s1.", "s2.")))
    )


def sources() -> list[Path]:
    """Every text file, with folders of many small files (NLI4CT's trial reports) as one (none
    where the datasets are missing: each shard's module skips then)."""
    if not DATA.is_dir():
        return []
    folders = {p.parent for p in DATA.rglob("*") if _is_text(p)}
    crowded = {f for f in folders if sum(1 for _ in f.iterdir()) > 50}
    files = [p for p in DATA.rglob("*") if _is_text(p) and p.parent not in crowded]
    return sorted(files + list(crowded))


def source_id(source: Path) -> str:
    return str(source.relative_to(DATA))


def _source_texts(source: Path) -> Iterator[str]:
    """Each distinct text of a source once, cut to a 4k prefix (whole CT reports are long; a
    4k prefix still holds long sentences). The checks are deterministic, so a text repeated
    (SummEdits repeats each document under every summary: 2-10 copies) adds nothing but time."""
    seen: set[str] = set()
    for path in sorted(source.iterdir()) if source.is_dir() else [source]:
        if _is_text(path):
            for text in _texts(path):
                text = text[:4000]
                if text not in seen:
                    seen.add(text)
                    yield text


def unsegmented(text: str) -> str:
    """The letters and digits of ``text`` outside every sentence ``segment`` finds."""
    return words_outside(text, segment(text))


def sweep(source: Path, shard: int) -> None:
    """Every ``SHARDS``-th text of ``source``'s sample (``PER_SOURCE``), from the
    ``shard``-th, through the checks."""
    checked, roles, decomposer = 0, load_roles(), RuleDecomposer()
    texts = list(_source_texts(source))
    every = 1 if SWEEP_ALL else max(1, math.ceil(len(texts) / PER_SOURCE))
    for text in itertools.islice(texts[::every], shard, None, SHARDS):
        roles.states_design_only(text)  # the engine reads whole windows this way
        # Every word of a text is in one of the engine's sentences: none goes unverified.
        assert unsegmented(text) == "", (text[:200], unsegmented(text))
        sentences = split_sentences(text)
        evidence = [("self", sentence) for sentence in sentences]
        for sentence in sentences:
            result = check_numbers(sentence, evidence)
            if extract_quantities(sentence):  # none when each refers back ("the two groups")
                assert result is None or result.passed, (sentence[:200], result)
            # The engine's reread of a model contradiction writes the evidence's values in, and
            # a reread is asked for only where that changes the words.
            reread = in_evidence_words(sentence, evidence)
            assert reread != sentence, sentence[:200]
            labelled = check_labelled_numbers(sentence, evidence)
            assert labelled is None, (sentence[:200], labelled)
            direction = check_direction(sentence, evidence)
            assert check_comparison(sentence, [("self", sentence)]) is None, sentence[:200]
            assert direction is None or direction.passed, (sentence[:200], direction)
            check_negation(sentence, evidence)
            # The engine reads two negated sentences again without their negation words.
            assert not is_negated(without_negation(sentence)), sentence[:200]
            negated_alike(sentence, text)
            aligned = check_alignment(sentence, evidence)
            assert all(r.passed for r in aligned), (sentence[:200], aligned)
            entities = check_entities(sentence, evidence)
            assert entities is None or entities.passed, (sentence[:200], entities)
            # A sentence read as a bare term states itself.
            term = check_cited_term(sentence, [("self", sentence)])
            assert term is None or term.passed, (sentence[:200], term)
            generic = check_generic_names(sentence, evidence)
            assert generic is None, (sentence[:200], generic)
            # Every name of a sentence stands in its own place in that sentence.
            assert swapped_names(sentence, evidence) == [], sentence[:200]
            assert 0.0 <= roles.design_probability(sentence) <= 1.0, sentence[:200]
            is_checkworthy(sentence)
            is_checkworthy(sentence, heading=True)
            # A bare name lent its paragraph's citation is read by these two (the engine).
            bare_term(sentence)
            specific_names(sentence)
            # Every sentence read as the line that introduces a list of bare names.
            lead = list_lead(f"{sentence}:", "WDR5")
            assert lead is None or lead in without_emphasis(sentence), (sentence[:200], lead)
            for claim in decomposer.decompose(sentence):
                assert 0 <= claim.start < claim.end <= len(sentence), (sentence[:200], claim)
                if claim.text != sentence:  # a claim cut at a clause ends on its own words
                    aligned = check_alignment(claim.text, [("self", sentence)])
                    assert all(r.passed for r in aligned), (claim.text[:200], aligned)
                    # and points the way its own clause does, in a sentence that points both.
                    turned = check_direction(claim.text, [("self", sentence)])
                    assert turned is None or turned.passed, (claim.text[:200], turned)
            checked += 1
    # A source with fewer texts than shards leaves the later shards nothing to check.
    assert checked > 0 or shard > 0
