"""Negation flips: a claim that copies its evidence but flips its polarity.

NLI models are known to miss a dropped or added "not" when the rest of the sentence matches word
for word. This check finds the evidence sentence closest to the claim by content-word overlap
and, when they are near copies, fails if exactly one of the claim and the matching clause of the
evidence is negated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import CheckResult
from verifiers.checks.normalise import content_tokens, normalise

_CUES = re.compile(
    r"\b(?:not|no|never|neither|nor|none|without|cannot|can't|won't|isn't|aren't|wasn't|"
    r"weren't|doesn't|don't|didn't|fails? to|failed to|absence of|lack of|lacks?|unable to|"
    r"did not|does not|do not|rather than|no longer|non significant|nonsignificant|"
    r"insignificant)\b"
)
# Polarity is read from the evidence clause that matches the claim: "X did not cause Y,
# suggesting Z is not important" has two negated clauses but one claim-relevant one.
_CLAUSE = re.compile(
    r"[,;:]\s+|\s+(?:but|whereas|while|although|suggesting|indicating|implying)\s+", re.IGNORECASE
)
NEAR_COPY = 0.6  # share of the claim's content words the evidence sentence must contain


def is_negated(text: str) -> bool:
    """Odd number of negation cues: "not without effect" reads as affirmative."""
    return len(_CUES.findall(normalise(text))) % 2 == 1


def check_negation(claim: str, sentences: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Compare the claim with the closest of ``sentences`` (pairs of PMID and evidence text).
    Returns None when no evidence sentence is a near copy (nothing to compare)."""
    claim_tokens = content_tokens(claim)
    if not claim_tokens:
        return None
    best: tuple[float, str, str] | None = None
    for pmid, text in sentences:
        overlap = len(claim_tokens & content_tokens(text)) / len(claim_tokens)
        if overlap >= NEAR_COPY and (best is None or overlap > best[0]):
            best = (overlap, pmid, text)
    if best is None:
        return None
    _, pmid, text = best
    clause = max(_CLAUSE.split(text), key=lambda c: len(claim_tokens & content_tokens(c)))
    claim_neg, evidence_neg = is_negated(claim), is_negated(clause)
    if claim_neg == evidence_neg:
        return CheckResult("negation", True, "same polarity as the closest evidence", pmid)
    side = "claim" if claim_neg else "evidence"
    return CheckResult("negation", False, f"negation flip: only the {side} is negated", pmid)
