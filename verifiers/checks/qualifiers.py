"""Qualifiers: a claim that copies its evidence but states it more surely, or of more or fewer.

Small NLI models read "these results suggest that X reduces Y" and "these results prove that
X reduces Y" as the same sentence, and "most patients" as "few patients". The evidence clause
closest to the claim (a near copy by content words, qualifiers left out, as the direction check
finds it) decides:

- **certainty**: the claim asserts certainty ("must", "proves", "conclusively", "clear") that
  the clause does not state while it hedges ("may", "suggests", "unclear"): an overstated claim
  (``overstated``, withholds support). A claim that only drops a hedge is left alone: answers
  summarise "these results suggest X" as "X" all the time.
- **quantity**: the claim has a quantifier of one side of a scale ("most", "always",
  "common", "major", "significantly") that the clause lacks, and the clause has one of the
  other side that the claim lacks ("few", "rarely", "rare", "minor", "marginally"): the
  quantity was changed (``quantifier``, withholds support: a scale word can be used loosely,
  so it never makes a contradiction on its own). Words of the same side ("most" and "the
  majority") never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.direction import clause_candidates
from verifiers.checks.normalise import as_tokens, closest, content_tokens, normalise

OVERSTATED = "overstated"
QUANTIFIER = "quantifier"
_WORD = re.compile(r"[a-z]+")

_HEDGES = frozenset(
    """may might could possibly probably perhaps potentially likely possible suggest suggests
    suggested suggesting indicate indicates indicated indicating preliminary tentative putative
    unclear uncertain appear appears appeared seem seems seemed hypothesized hypothesised
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_CERTAIN = frozenset(
    """must certainly certain prove proves proved proven proving conclusive conclusively
    definitive definitively established undoubtedly unequivocally clear clearly
    """.split()  # noqa: SIM905
)


def _side(up: str, down: str) -> dict[str, int]:
    return {**dict.fromkeys(up.split(), 1), **dict.fromkeys(down.split(), -1)}


# Scales of quantity: each word on its side (+1 or -1); a claim and its evidence disagree when
# the claim brings one side and the evidence the other, on the same scale.
_SCALES: dict[str, dict[str, int]] = {
    "amount": _side("all most majority many every", "few minority none"),
    "frequency": _side(
        "always often frequently usually commonly consistently",
        "rarely seldom never occasionally infrequently",
    ),
    "prevalence": _side("common frequent widespread prevalent", "rare uncommon infrequent unusual"),
    "size": _side(
        "major large substantial significantly strongly",
        "minor small modest slight marginally slightly weakly",
    ),
    "timing": _side("early earlier", "late later"),
}


def scale_side(word: str) -> tuple[str, int] | None:
    """The quantity scale ``word`` is on and its side (+1 or -1), or None."""
    for name, scale in _SCALES.items():
        if word in scale:
            return name, scale[word]
    return None


_QUALIFIERS = _HEDGES | _CERTAIN | {w for scale in _SCALES.values() for w in scale}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(normalise(text)))


_QUALIFIER_TOKENS = as_tokens(_QUALIFIERS)  # "indicat" for "indicates", "prov" for "proves"


def _content(text: str) -> set[str]:
    return content_tokens(text) - _QUALIFIER_TOKENS


def check_qualifiers(claim: str, sentences: Sequence[tuple[str, str]]) -> list[CheckResult]:
    """Compare the claim's qualifiers with those of the closest of ``sentences`` (PMID, text);
    empty when the claim has none or nothing is a near copy."""
    claim_words = _words(claim)
    if not claim_words & _QUALIFIERS:
        return []
    claim_tokens = _content(claim)
    if not claim_tokens:
        return []
    found = closest(claim_tokens, clause_candidates(sentences), _content)
    if found is None:
        return []
    pmid, clause = found
    clause_words = _words(clause)
    results: list[CheckResult] = []
    asserted = (claim_words & _CERTAIN) - clause_words
    if asserted and clause_words & _HEDGES:
        hedges = ", ".join(sorted(clause_words & _HEDGES))
        detail = (
            f"overstated: the claim says {', '.join(sorted(asserted))} where the evidence "
            f"hedges ({hedges}): \u201c{clause.strip()[:160]}\u201d"
        )
        results.append(CheckResult(OVERSTATED, False, detail, pmid))
    for name, scale in _SCALES.items():
        brought = {scale[w] for w in claim_words - clause_words if w in scale}
        stated = {scale[w] for w in clause_words - claim_words if w in scale}
        if len(brought) == 1 and len(stated) == 1 and brought != stated:
            detail = f"{name} changed: the evidence says \u201c{clause.strip()[:160]}\u201d"
            results.append(CheckResult(QUANTIFIER, False, detail, pmid))
            break
    return results


def _run(claim: CheckInput) -> list[CheckResult]:
    return check_qualifiers(claim.text, claim.sentences)


QUALIFIERS_CHECK = Check(
    "qualifiers",
    _run,
    {OVERSTATED: Effect.WITHHOLDS_SUPPORT, QUANTIFIER: Effect.WITHHOLDS_SUPPORT},
)
