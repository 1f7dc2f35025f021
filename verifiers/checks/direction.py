"""Direction flips: a claim that copies its evidence but swaps a direction word.

Small NLI models read "increased" and "decreased" (or "inhibits" and "activates") in otherwise
identical sentences as near-identical. This check finds the evidence clause closest to the
claim by content words (direction words left out of the overlap) and, when they are near
copies, fails if the claim's direction words all point one way and the clause's the other.
Negated sentences are left to the negation check ("did not increase" is not "decreased").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.negation import is_negated
from verifiers.checks.normalise import closest, content_tokens, normalise

_UP = """increase increases increased increasing rise rises rose raised elevated elevation higher
    greater more improve improves improved improvement enhance enhances enhanced promote promotes
    promoted activate activates activated stimulate stimulates stimulated upregulate upregulates
    upregulated upregulation induce induces induced gain longer prolonged better beneficial
    superior positively positive overexpression accelerated accelerates faster"""
_DOWN = """decrease decreases decreased decreasing fall falls fell lowered reduced reduce reduces
    reduction lower smaller less fewer worsen worsens worsened impair impairs impaired inhibit
    inhibits inhibited suppress suppresses suppressed downregulate downregulates downregulated
    downregulation attenuate attenuates attenuated blocks blocked loss shorter shortened worse
    harmful inferior negatively negative knockdown slowed slows slower"""
_SIGN = {w: 1 for w in _UP.split()} | {w: -1 for w in _DOWN.split()}
_WORD = re.compile(r"[a-z]+")
DIRECTION = "direction"  # the name of its results
# Comparisons name two sides ("higher in A than in B"): swapping the word and the sides keeps
# the meaning, so comparative sentences are left to the model.
_COMPARATIVE = re.compile(r"\b(?:than|compared|versus|vs)\b")
_CLAUSE = re.compile(
    r"[,;:]\s+|\s+(?:but|whereas|while|although|suggesting|indicating|implying)\s+", re.IGNORECASE
)


def word_sign(word: str) -> int:
    """+1 for a word that points up ("increased"), -1 for one that points down, else 0."""
    return _SIGN.get(word, 0)


def direction(text: str) -> int:
    """+1 when every direction word in ``text`` points up, -1 when all point down, else 0."""
    normalised = (
        normalise(text).replace("up regulat", "upregulat").replace("down regulat", "downregulat")
    )
    signs = {_SIGN[w] for w in _WORD.findall(normalised) if w in _SIGN}
    return signs.pop() if len(signs) == 1 else 0


def clause_candidates(sentences: Sequence[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """Each sentence (PMID, text) and its clauses ("X rose, whereas Y fell"), shortest first,
    so that a clause wins over its sentence when both hold a claim equally well."""
    for pmid, text in sentences:
        for clause in sorted({text, *_CLAUSE.split(text)}, key=len):
            yield pmid, clause


def _content(text: str) -> set[str]:
    return {t for t in content_tokens(text) if t not in _SIGN}


def check_direction(claim: str, sentences: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Compare the claim's direction with the closest of ``sentences`` (PMID, text). None when
    the claim has no one-way direction, is negated or comparative, or nothing is a near copy."""
    claim_sign = direction(claim)
    if claim_sign == 0 or is_negated(claim) or _COMPARATIVE.search(normalise(claim)):
        return None
    claim_tokens = _content(claim)
    if not claim_tokens:
        return None
    # The sentence and its clauses: the closest one decides.
    found = closest(claim_tokens, clause_candidates(sentences), _content)
    if found is None:
        return None
    pmid, clause = found
    evidence_sign = direction(clause)
    if evidence_sign == 0 or is_negated(clause) or _COMPARATIVE.search(normalise(clause)):
        return None
    if evidence_sign == claim_sign:
        return CheckResult(DIRECTION, True, "same direction as the closest evidence", pmid)
    return CheckResult(
        DIRECTION,
        False,
        f"direction flip: the evidence says \u201c{clause.strip()[:160]}\u201d",
        pmid,
    )


def _run(claim: CheckInput) -> list[CheckResult]:
    result = check_direction(claim.text, claim.sentences)
    return [] if result is None else [result]


DIRECTION_CHECK = Check(DIRECTION, _run, {DIRECTION: Effect.CONTRADICTS})
