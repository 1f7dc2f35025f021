"""Recipe v2's general-domain readers read the real files as written, recipe v1 is unchanged,
v3 is v2 at 128 tokens with HealthVer's claims repeated, and v4 is v1 with more contradictions
of the kinds a longer-trained model let pass."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from verifiers.eval.data import data_dir
from verifiers.training import card
from verifiers.training.claims import EMPHASIS_MAKERS
from verifiers.training.dataset import emphasised_pairs, repeated_pairs
from verifiers.training.examples import CONTRADICTION, ENTAILMENT, NEUTRAL, Example
from verifiers.training.general import GENERAL_READERS, GENERAL_READERS_V2, lingnli, sick
from verifiers.training.recipe import DEFAULT_RECIPE, RECIPES

DATA = data_dir(relative_to=Path(__file__).parents[3])
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")
LABELS = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}


@needs_data
def test_lingnli_reads_the_training_rounds_only() -> None:
    folder = DATA / "general_nli" / "lingnli"
    first = sorted(folder.glob("*/train_round*.jsonl"))[0]
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()[:3]]
    examples = list(lingnli(DATA, random.Random(0)))
    assert [(e.premise, e.hypothesis, e.label) for e in examples[:3]] == [
        (r["premise"], r["hypothesis"], LABELS[r["label"]]) for r in rows
    ]
    assert examples[0].group == f"lingnli:{rows[0]['promptID']}"
    # The validation rounds stay out: free for a held-out check.
    validation = {
        (row["premise"], row["hypothesis"])
        for path in folder.glob("*/val_round*.jsonl")
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
    assert validation, "no validation rounds found"
    assert validation.isdisjoint((e.premise, e.hypothesis) for e in examples)
    counts = Counter(e.label for e in examples)
    assert sum(counts.values()) == 44_983
    assert min(counts.values()) > 14_900  # balanced three ways


@needs_data
def test_sick_maps_its_judgments_and_keeps_both_directions_together() -> None:
    examples = list(sick(DATA, random.Random(0)))
    assert (examples[0].premise, examples[0].hypothesis, examples[0].label) == (
        "A group of kids is playing in a yard and an old man is standing in the background",
        "A group of boys in a yard is playing and a man is standing in the background",
        NEUTRAL,
    )
    lines = (DATA / "general_nli" / "sick" / "SICK.txt").read_text(encoding="utf-8").splitlines()
    judged = Counter(line.split("\t")[-1] for line in lines[1:] if line.strip())
    counts = Counter(e.label for e in examples)
    assert counts[ENTAILMENT] == judged["ENTAILMENT"]
    assert counts[CONTRADICTION] == judged["CONTRADICTION"]
    assert counts[NEUTRAL] == judged["NEUTRAL"]
    by_pair = {(e.premise, e.hypothesis): e.group for e in examples}
    reversed_pairs = [(p, h) for p, h in by_pair if (h, p) in by_pair]
    assert reversed_pairs, "SICK writes some pairs both ways round"
    assert all(by_pair[p, h] == by_pair[h, p] for p, h in reversed_pairs)


def test_recipe_v1_reads_what_the_shipped_model_read() -> None:
    v1 = RECIPES[DEFAULT_RECIPE]
    assert DEFAULT_RECIPE == "v1"
    assert v1.general is GENERAL_READERS and v1.max_length == 128
    assert v1.stage_two(Path("unused"), 128) == {}
    assert set(GENERAL_READERS_V2) - set(GENERAL_READERS) == {"lingnli", "sick"}


def test_recipe_v3_is_v2_at_128_tokens_with_healthver_seen_twice() -> None:
    v2, v3 = RECIPES["v2"], RECIPES["v3"]
    assert (v3.general, v3.documents) == (v2.general, v2.documents)
    assert v3.max_length == 128 and v2.max_length == 256
    assert dict(v3.repeats) == {"healthver:": 2} and not v2.repeats


def test_repeated_pairs_copies_the_named_claims_training_pairs_only() -> None:
    def pair(group: str, n: int) -> Example:
        return Example(f"premise {n}", f"claim {n}", NEUTRAL, group.split(":")[0], group)

    train = [pair("healthver:1", 0), pair("scifact:1", 1), pair("healthver:2", 2)]
    extra = repeated_pairs(train, {"healthver:": 3}, random.Random(0))
    assert Counter(e.hypothesis for e in extra) == {"claim 0": 2, "claim 2": 2}
    assert repeated_pairs(train, {}, random.Random(0)) == []


def test_recipe_v4_is_v1_with_every_emphasised_kind() -> None:
    v1, v4 = RECIPES["v1"], RECIPES["v4"]
    assert (v4.general, v4.documents, v4.max_length) == (v1.general, v1.documents, 128)
    assert set(v4.emphasis) == set(EMPHASIS_MAKERS) and not v1.emphasis


def test_emphasised_pairs_contradict_supported_claims_of_the_named_kind_only() -> None:
    premise = "Statin use decreased mortality in all patients."
    rows = [
        Example(
            premise, "Statins decreased mortality in all patients.", ENTAILMENT, "scifact", "s:1"
        ),
        Example(premise, "Statins are given to patients.", ENTAILMENT, "scifact", "s:2"),
        Example(premise, "Statins increased mortality.", NEUTRAL, "scifact", "s:3"),
    ]
    made = emphasised_pairs(rows, {"direction": 1.0, "quantifier": 1.0}, random.Random(0))
    assert [(e.hypothesis, e.label, e.source, e.group) for e in made] == [
        ("Statins increased mortality in all patients.", CONTRADICTION, "scifact+direction", "s:1"),
        (
            "Statins decreased mortality in few patients.",
            CONTRADICTION,
            "scifact+quantifier",
            "s:1",
        ),
    ]
    assert all(e.premise == premise for e in made)
    assert emphasised_pairs(rows, {"direction": 0.0}, random.Random(0)) == []


@pytest.mark.parametrize(("recipe", "listed"), [("v1", False), ("v2", True), ("v3", True)])
def test_the_model_card_lists_the_document_level_sources_of_its_recipe(
    tmp_path: Path, recipe: str, listed: bool
) -> None:
    config = {
        "version": "test",
        "thresholds": {"rule": "most_relevant", "relevance": 0.9, "support": 0.5},
        "window_sizes": [1, 2],
        "training": {"settings": {"recipe": recipe}},
    }
    (tmp_path / "nli_config.json").write_text(json.dumps(config), encoding="utf-8")
    assert ("Recipe v2 additions" in card.render(tmp_path)) is listed


def test_train_nli_offers_every_recipe() -> None:
    # The CLI lists the names itself, not importing the readers (start-up cost), so a recipe
    # added to RECIPES must be added there too.
    from proxy.cli import build_parser

    parser = build_parser()
    for name in RECIPES:
        assert parser.parse_args(["train-nli", "--recipe", name]).recipe == name
