"""``eval lists`` on a BioASQ-shaped fixture of two list questions written for the test (their
snippets are sentences of SciFact abstracts, CC BY 4.0), through a verifier whose model entails
everything: the list items read as the engine reads them, not how good its model is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifiers.eval.lists import evaluate_lists, load_list_items, render, render_cited_at_end

FIXTURES = Path(__file__).parents[2] / "fixtures" / "lists"


def test_list_items_hold_the_names_their_snippets_hold() -> None:
    items = load_list_items(FIXTURES)
    assert [(i.names, i.pmids) for i in items] == [
        (("CX3CR1", "CX3CL1"), ("21366394", "21366394")),  # the long phrase is no name
        (("aldehyde dehydrogenase", "ALDH"), ("45638119", "45638119")),  # CD44 is not held
    ]
    for item in items:  # a swap is a name the answer's snippets never hold
        assert all(item.swap.lower() not in e.abstract.lower() for e in item.evidence)
    assert render(["CX3CR1"], ["1"]) == "**Answer:**\n- CX3CR1 [PMID:1]\n"
    assert render_cited_at_end(["CX3CR1", "CCR7", "WDR5"], ["1", "2", "1"]) == (
        "**Answer:**\n- CX3CR1\n- CCR7\n- WDR5 [PMID:1] [PMID:2]\n"
    )


def test_a_swapped_name_is_caught_and_the_correct_ones_are_not_flagged(
    entailing_verifier: Any,
) -> None:
    """Each correct name is borne out by its cited snippet (`not_checkworthy`, a passed check),
    each swapped name is `unsupported`: before 2026-12-06 both went out `not_checkworthy`."""
    result = evaluate_lists(entailing_verifier.verify, load_list_items(FIXTURES)).as_dict()
    assert result["misread"] == 0
    assert result["correct_verdicts"] == {"not_checkworthy": 4}
    assert result["swapped_verdicts"] == {"unsupported": 2}
    assert result["swapped_caught_rate"] == 1.0 and result["correct_flagged_rate"] == 0.0


def test_a_list_cited_once_at_its_end_is_checked_as_one_cited_item_by_item(
    entailing_verifier: Any,
) -> None:
    """Cited once, by its last item, the names before it are read against that citation: the
    swapped one is caught. Before 2026-12-07 every name but the last went out
    `not_checkworthy`, the swapped one included."""
    items = load_list_items(FIXTURES)
    result = evaluate_lists(entailing_verifier.verify, items, rendering="cited_at_end").as_dict()
    assert result["misread"] == 0
    assert result["correct_verdicts"] == {"not_checkworthy": 4}
    assert result["swapped_verdicts"] == {"unsupported": 2}
