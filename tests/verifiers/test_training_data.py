"""The NLI training data: the held-out splits never leak, and the rule-made pairs say what
their labels claim."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from verifiers.eval.data import data_dir
from verifiers.training import benchmarks, dataset
from verifiers.training.claims import contradict, negate, swap_direction

DATA = data_dir(relative_to=Path(__file__).parents[2])
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


@pytest.fixture(scope="module")
def splits() -> dataset.Splits:
    """The full training and validation pairs, built once (seeded: every build is the same)."""
    return dataset.build(DATA)


@needs_data
def test_benchmarks_never_reach_the_training_pairs(splits: dataset.Splits) -> None:
    # Rule-made claims (a swapped direction word, a flipped negation) can happen to write a
    # dev claim's text; the pairs read from the datasets must not.
    trained_claims = {e.hypothesis for e in splits.train if "+" not in e.source}
    for name in ("scifact", "healthver", "checkcovid"):
        claims = {item.claim for item in benchmarks.DATASETS[name](DATA)}
        assert claims, name
        # SciFact's own train and dev files share two claim texts.
        allowed = 2 if name == "scifact" else 0
        assert len(claims & trained_claims) <= allowed, name


@needs_data
def test_validation_claims_are_never_trained_on(splits: dataset.Splits) -> None:
    assert {e.group for e in splits.train}.isdisjoint({e.group for e in splits.validation})


def test_rule_made_contradictions_change_what_the_claim_says() -> None:
    assert negate("Vitamin D is associated with lower mortality.") == (
        "Vitamin D is not associated with lower mortality."
    )
    assert negate("Masks do not reduce transmission.") == "Masks do reduce transmission."
    assert swap_direction("Exercise increases insulin sensitivity.") == (
        "Exercise decreases insulin sensitivity."
    )
    made = contradict("A 5 mg dose reduced pain.", random.Random(1))
    assert made is not None and made != "A 5 mg dose reduced pain."
    assert contradict("Aspirin and bleeding.", random.Random(1)) is None


@needs_data
def test_answer_eval_questions_are_never_trained_on(splits: dataset.Splits) -> None:
    from verifiers.eval.answers import load_items

    items = load_items(DATA)
    assert {i.group.split(":")[0] for i in items} == {"bioasq", "pubmedqa"}
    held = {s.strip() for item in items for s in item.sentences if len(s) > 40}
    seen = {t.strip() for e in splits.train + splits.validation for t in (e.premise, e.hypothesis)}
    # A sentence may reach training only as part of a longer premise it was cut from.
    assert not held & seen
    pubmedqa_groups = {i.group for i in items if i.group.startswith("pubmedqa:")}
    assert pubmedqa_groups.isdisjoint({e.group for e in splits.train})


@needs_data
def test_snli_test_stays_out_of_stage_one() -> None:
    from verifiers.training.general import snli_test

    general = dataset.build_general(DATA)
    trained = {(e.premise, e.hypothesis) for e in general.train}
    held = {(e.premise, e.hypothesis) for e in snli_test(DATA)}
    assert len(held) > 9000
    # SNLI dev and test share no pair; a handful of generic captions may coincide.
    assert len(held & trained) <= 5
    assert {e.source for e in general.train} >= {"snli", "taxinli", "docnli", "climatefever"}


def test_harder_contradictions_by_kind() -> None:
    from verifiers.training.claims import change_number_word, reverse_comparison, swap_quantifier

    assert swap_quantifier("Most patients recovered.") == "Few patients recovered."
    assert change_number_word("Risk rose two-fold.") == "Risk rose ten-fold."
    assert (
        reverse_comparison("IL-6 was higher in smokers than in non-smokers.")
        == "IL-6 was higher in non-smokers than in smokers."
    )
    assert swap_direction("Statins reduced mortality.") == "Statins increased mortality."


def _fixture_abstract(pmid: str) -> tuple[str, list[str]]:
    records = Path(__file__).parents[1] / "fixtures" / "verification" / "evidence.jsonl"
    for line in records.read_text().splitlines():
        record = json.loads(line)
        if record["pmid"] == pmid:
            return " ".join(record["sentences"]), record["sentences"]
    raise LookupError(pmid)


def test_overstated_hedges_on_real_abstract_sentences() -> None:
    from verifiers.training.claims import overstate_hedge

    _, asthma = _fixture_abstract("21366394")  # CX3CR1 in asthma (SciFact corpus)
    conclusion = next(s for s in asthma if s.startswith("Therefore"))
    assert overstate_hedge(conclusion) == (
        "Therefore, CX3CR1 and CX3CL1 must represent attractive therapeutic targets in asthma."
    )
    _, cruise = _fixture_abstract("biho913w")  # COVID-19 on cruise ships (Check-COVID corpus)
    hedged = next(s for s in cruise if "likely" in s)
    assert "is certain to be significantly underestimated" in (overstate_hedge(hedged) or "")
    # A firm finding has no hedge to overstate.
    assert (
        overstate_hedge("Whole-body energy expenditure was also increased upon CDCA treatment.")
        is None
    )


def test_entities_are_swapped_within_the_same_abstract() -> None:
    from verifiers.training.claims import swap_entity

    abstract, sentences = _fixture_abstract("21366394")
    for sentence in sentences:
        swapped = swap_entity(sentence, abstract, random.Random(3))
        if swapped is None:
            continue
        assert swapped != sentence
        # The new entity comes from the same abstract; the rest of the sentence is kept.
        new = set(re.split(r"[\s-]", swapped)) - set(re.split(r"[\s-]", sentence))
        assert new and all(word.strip(".,;:()") in abstract for word in new)
    # The ibuprofen trial: the drug becomes the anaesthetic given to both groups.
    from tests.proxy.ibuprofen import DOC

    claim = "Pretreatment with ibuprofen increases perioperative blood loss."
    assert swap_entity(claim, DOC["text"], random.Random(0)) == (
        "Pretreatment with bupivacaine increases perioperative blood loss."
    )
    assert swap_entity(claim, "No other drug is named here.", random.Random(0)) is None


def test_an_entity_is_never_swapped_for_its_own_plural_or_a_heading() -> None:
    """A name for its plural ("HCC" for "HCCs") is the same name to a reader and to the entity
    check, and a heading ("RESULTS") is no name: a perturbation that makes either is no
    distortion, and a training pair labelled by it teaches a false contradiction."""
    from verifiers.training.claims import swap_entity

    claim = "HCC recurred in 12 patients after resection."
    context = "HCCs recurred after resection. Statins were given to 30 patients."
    for seed in range(20):
        assert swap_entity(claim, context, random.Random(seed)) is None
    # Nor for a section heading the symbol finder reads as a name.
    headed = "IMPORTANCE HCCs recurred after resection. RESULTS AND CONCLUSIONS: it did."
    for seed in range(20):
        assert swap_entity(claim, headed, random.Random(seed)) is None
    # Another name of the same kind is still swapped in.
    swapped = {swap_entity(claim, f"{context} AFP rose.", random.Random(s)) for s in range(20)}
    assert swapped == {"AFP recurred in 12 patients after resection."}


def test_an_entity_is_never_swapped_for_one_listed_with_it() -> None:
    """What an abstract says of a list ("Two antibodies, fremanezumab and galcanezumab, ...
    were approved", BioASQ's PMID 30550780) it says of each name in it, and an apposition
    names one thing twice: a swap within either is as true as the claim, no distortion. A
    name the abstract keeps apart is still swapped in."""
    from verifiers.training.claims import swap_entity

    claim = "Fremanezumab was approved by the FDA in September 2018."
    listed = (
        "Two antibodies, fremanezumab and galcanezumab, directed towards the CGRP ligand, were "
        "approved by the FDA in September 2018."
    )
    apart = f"{listed} Erenumab blocks the receptor instead."
    for seed in range(20):
        assert swap_entity(claim, listed, random.Random(seed)) in {
            None,
            "Fremanezumab was approved by the CGRP in September 2018.",  # a symbol swap
        }
        swapped = swap_entity(claim, apart, random.Random(seed))
        assert swapped is not None and "galcanezumab" not in swapped
    assert "Erenumab was approved by the FDA in September 2018." in {
        swap_entity(claim, apart, random.Random(seed)) for seed in range(20)
    }
    # Three or more, and an abbreviation in brackets, are lists too.
    longer = "Dacetuzumab, lucatumumab or rituximab (RTX) were given."
    for seed in range(20):
        assert swap_entity("Dacetuzumab was given.", longer, random.Random(seed)) is None


@needs_data
def test_a_value_is_swapped_for_another_of_its_sentence() -> None:
    """The other arm's or the other measure's value, in the same unit, from the sentence that
    states the claim's (PubMedQA 25156467, MIT); years and p values are never swapped."""
    from verifiers.training.claims import swap_value

    context = (
        "Early extubation was associated with lower mortality (1% vs 9%, P<.001) and a lower "
        "rate of reintubation (4% vs 23%, P<.001). The study ran from 2005 to 2011."
    )
    claim = "Early extubation in 2005 lowered mortality to 1%."
    made = {swap_value(claim, context, random.Random(seed)) for seed in range(20)}
    assert made == {claim.replace("1%", f"{v}%") for v in (4, 9, 23)}
    assert swap_value("Mortality fell to 7%.", context, random.Random(0)) is None


def test_every_perturbation_runs_on_every_corpus() -> None:
    """Real text from every corpus through every perturbation rule: Unicode units, odd
    punctuation and long sentences raise nothing, and a rule either changes the text or
    declines."""
    from bench.realtext import real_texts
    from verifiers.eval.answers import PERTURBATIONS

    corpora = real_texts(DATA, per_corpus=200)
    assert corpora
    rng = random.Random(7)
    for texts in corpora.values():
        context = " ".join(texts[:20])
        for text in texts:
            for rule in PERTURBATIONS.values():
                made = rule(text, context, rng)
                assert made is None or made != text


def test_pairs_are_counted_per_source_with_the_replay_apart() -> None:
    from verifiers.training.examples import ENTAILMENT, Example

    def rows(source: str, n: int) -> list[Example]:
        return [Example("p", f"h{i}", ENTAILMENT, source, f"{source}:{i}") for i in range(n)]

    general = dataset.Splits(rows("lingnli", 12) + rows("sick", 6), [])
    biomedical = dataset.Splits(rows("scifact", 30) + rows("scifact+deleted", 4), [])
    data = dataset.StageData(general, biomedical, dataset.rehearse(biomedical, general))
    assert data.rehearsed == 34 // 6
    assert data.by_source() == {
        "general": {"lingnli": 12, "sick": 6},
        "biomedical": {"scifact": 30, "scifact+deleted": 4, "replayed": 5},
    }
    table = data.table().splitlines()
    assert table[0] == "general: 18 training pairs"
    assert "biomedical: 39 training pairs" in table
    assert any(line.split() == ["scifact+deleted", "4"] for line in table)
