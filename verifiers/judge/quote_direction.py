"""Whether a judge's quote says the opposite of the claim it is quoted for.

A ``supported`` verdict stands only with a quote that is in the evidence the judge cites
(:func:`verifiers.checks.quotes.quote_source`) and that the bundled model reads as bearing on the
claim. Neither reads its direction: "blood loss increased" bears on "blood loss decreased" as
much as on itself, and the bundled model is the one that glosses over such flips. So the
deterministic checks that read direction run here between the claim and the quote alone:

* ``direction``: the two are near copies with their direction words pointing opposite ways;
* ``negation``: near copies, one of them negated;
* ``numbers``: the quote states the claim's quantity with another value (a quantity the quote
  does not state at all says nothing about direction, so ``unstated_number`` does not count).

Direction and negation are read both ways round, since the checks ask that the text read hold
most of its words in the other: a short quote inside a long claim, or a short claim inside a
long quote, is a near copy one way only.
"""

from __future__ import annotations

from dataclasses import replace

from verifiers._types import CheckResult
from verifiers.checks import check_direction, check_negation, check_numbers
from verifiers.checks.direction import DIRECTION
from verifiers.checks.negation import NEGATION
from verifiers.checks.numbers import NUMBERS

QUOTE = "quote"  # what the checks' results name as their source
# Read both ways round, a check's own detail may quote the claim as "the evidence".
_FLIP_DETAIL = {
    DIRECTION: "direction flip: the quote points the other way",
    NEGATION: "negation flip: one of the claim and the quote is negated",
}


def quote_contradiction(claim: str, quote: str) -> CheckResult | None:
    """The first failed check that says ``quote`` contradicts ``claim`` (direction flipped, a
    negation flipped or another value for the same quantity), its detail saying so of the
    quote; None when none does."""
    flips = (
        check_direction(claim, [(QUOTE, quote)]) or check_direction(quote, [(QUOTE, claim)]),
        check_negation(claim, [(QUOTE, quote)]) or check_negation(quote, [(QUOTE, claim)]),
    )
    for result in flips:
        if result is not None and not result.passed:
            detail = _FLIP_DETAIL.get(result.name, result.detail)
            return replace(result, detail=detail)
    return _changed_number(claim, quote)


def _changed_number(claim: str, quote: str) -> CheckResult | None:
    result = check_numbers(claim, [(QUOTE, quote)])
    # check_numbers reports a changed value before an unstated one; only the first is a flip.
    if result is None or result.passed or result.name != NUMBERS:
        return None
    return replace(result, detail=result.detail.replace("the evidence", "the quote"))
