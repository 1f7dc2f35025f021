"""Negation flips: a claim that copies its evidence but flips its polarity.

NLI models are known to miss a dropped or added "not" when the rest of the sentence matches word
for word. This check finds the evidence sentence closest to the claim by content-word overlap
and, when they are near copies, compares them clause by clause: it fails if exactly one of a
claim clause and the evidence clause it copies is negated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.normalise import NEAR_COPY, closest, content_tokens, normalise
from verifiers.roles import states_design
from verifiers.segment import segment

_CUES = re.compile(
    r"\b(?:not|no|never|neither|nor|none|without|cannot|can't|won't|isn't|aren't|wasn't|"
    r"weren't|doesn't|don't|didn't|fails? to|failed to|absence of|lack of|lacks?|unable to|"
    r"did not|does not|do not|rather than|no longer|non significant|nonsignificant|"
    r"insignificant|undetectable|undetected|unchanged|unaffected|unaltered|absent)\b"
)
# A possibility left open is no negation: "a difference cannot be excluded" says there may be
# one ("Small differences ... have to be considered" is its paraphrase, not its flip), as does
# "it is prudent not to dismiss" one. The cues inside these are not counted.
_LITOTES = re.compile(
    r"\b(?:(?:cannot|can't|can not|could not|couldn't|may not|might not|should not)\s+be\s+"
    r"(?:excluded|ruled out|dismissed|discounted|ignored|overlooked|neglected)"
    r"|not\s+to\s+(?:exclude|rule out|dismiss|discount|ignore|overlook|neglect))\b"
)
# Polarity is read from the evidence clause that matches the claim: "X did not cause Y,
# suggesting Z is not important" has two negated clauses but one claim-relevant one. A negated
# alternative is a clause of its own, after a comma, "and" or in brackets ("caused by a CAG
# repeat (not CTG)"): it negates the alternative, not what the clause before it states.
_CLAUSE = re.compile(
    r"[,;:]\s+|\s+(?:but|whereas|while|although|suggesting|indicating|implying|who|which)\s+"
    r"|\s+and\s+(?=not\b)|\s*\((?=not\b)",
    re.IGNORECASE,
)
# Share of the matching evidence clause's content words a claim clause must contain: a short
# claim ("The tradename of apixaban is Eliquis") shares two words with a long clause that has
# its own negation ("... apixaban (Eliquis) ... does not require monitoring") without copying it.
REVERSE_COPY = 0.3
NEGATION = "negation"  # the name of its results


def is_negated(text: str) -> bool:
    """Odd number of negation cues: "not without effect" reads as affirmative."""
    return len(_cues(normalise(text))) % 2 == 1


# A cue after "or" negates an alternative, not the clause: "the difference was weaker or not
# statistically significant", "whether or not", "with or without".
_ALTERNATIVE = re.compile(r"\bor\s+$")


def _cues(normalised: str) -> list[re.Match[str]]:
    """The negation cues of a normalised text, but those that leave a possibility open or
    negate an alternative."""
    open_ = [m.span() for m in _LITOTES.finditer(normalised)]
    return [
        m
        for m in _CUES.finditer(normalised)
        if not any(start <= m.start() < end for start, end in open_)
        and not _ALTERNATIVE.search(normalised, max(m.start() - 4, 0), m.start())
    ]


# The affirmative each cue leaves behind ("cannot" -> "can", "wasn't" -> "was"); a cue not
# named here is dropped ("did not improve" -> "did improve", "no correlation" -> "correlation").
_AFFIRMATIVE = {
    "cannot": "can", "can't": "can", "won't": "will", "isn't": "is", "aren't": "are",
    "wasn't": "was", "weren't": "were", "doesn't": "does", "don't": "do", "didn't": "did",
    "nor": "or", "non significant": "significant", "nonsignificant": "significant",
    "insignificant": "significant", "undetectable": "detectable", "undetected": "detected",
    "unchanged": "changed", "unaffected": "affected", "unaltered": "altered",
    "absent": "present",
}  # fmt: skip


def negated_alike(claim: str, evidence: str) -> bool:
    """Whether the claim is negated and each negated clause of it faces a negated clause of
    ``evidence``: the evidence clause (of any of its sentences) sharing most of its content
    words. "without myocardial injury" in a clause about prognosis does not negate "Myocardial
    injury is associated with fatal outcome" for the claim "X does not cause heart damage"."""
    if not is_negated(claim):
        return False
    clauses = [
        (clause, content_tokens(clause))
        for sentence in segment(evidence)
        for clause in _CLAUSE.split(sentence.text)
    ]
    negated = [content_tokens(c) for c in _CLAUSE.split(claim) if is_negated(c)]
    if not negated or not clauses:
        return False
    for tokens in negated:
        match, match_tokens = max(clauses, key=lambda e: len(tokens & e[1]))
        if not tokens & match_tokens or not is_negated(match):
            return False
    return True


def without_negation(text: str) -> str:
    """``text`` normalised (lower-cased: the NLI model reads no case) with its negation cues
    taken out, the affirmative it negates as near as words allow ("No significant correlation
    was found" -> "significant correlation was found")."""
    text = normalise(text)
    pieces, last = [], 0
    for cue in _cues(text):
        pieces += [text[last : cue.start()], _AFFIRMATIVE.get(cue.group(0), "")]
        last = cue.end()
    return re.sub(r"\s{2,}", " ", "".join([*pieces, text[last:]])).strip()


def check_negation(claim: str, sentences: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Compare the claim with the closest of ``sentences`` (pairs of PMID and evidence text),
    clause by clause: each clause of the claim against the evidence clause it copies, so "binds
    at lysine 9 but not at lysine 4" is read against the same two clauses. Returns None when no
    evidence clause is a near copy of a claim clause (nothing to compare)."""
    claim_tokens = content_tokens(claim)
    if not claim_tokens:
        return None
    # A sentence that states the study's aim or methods poses the question or says what was
    # done: a conclusion that negates it is the answer, not a flip of the evidence.
    found = closest(claim_tokens, ((p, t) for p, t in sentences if not states_design(t)))
    if found is None:
        return None
    pmid, text = found
    evidence = [(clause, content_tokens(clause)) for clause in _CLAUSE.split(text)]
    compared = False
    for clause in _CLAUSE.split(claim):
        tokens = content_tokens(clause)
        if not tokens:
            continue
        match, match_tokens = max(evidence, key=lambda e: len(tokens & e[1]))
        shared = len(tokens & match_tokens)
        if shared < NEAR_COPY * len(tokens) or shared < REVERSE_COPY * len(match_tokens):
            continue
        compared = True
        claim_neg, evidence_neg = is_negated(clause), is_negated(match)
        if claim_neg != evidence_neg:
            side = "claim" if claim_neg else "evidence"
            return CheckResult(NEGATION, False, f"negation flip: only the {side} is negated", pmid)
    if not compared:
        return None
    return CheckResult(NEGATION, True, "same polarity as the closest evidence", pmid)


def _run(claim: CheckInput) -> list[CheckResult]:
    result = check_negation(claim.text, claim.sentences)
    return [] if result is None else [result]


# A flipped negation overturns "supported" only: NLI may already call the claim contradicted
# or unsupported for reasons of its own.
NEGATION_CHECK = Check(NEGATION, _run, {NEGATION: Effect.REFUTES_SUPPORT})
