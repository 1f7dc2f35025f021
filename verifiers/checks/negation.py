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
# Knowledge not yet had negates no finding: "the mechanism by which TMZ induces cell cycle
# arrest has not been well-established" takes the arrest as known, and "whether X reduces Y has
# not been established" leaves it open (not refuted). The cue before such a participle is not
# counted, unless the claim it is compared with says the same participle ("X was studied here"
# against "X was not studied here" is a flip). Verbs of finding ("not detected", "not found",
# "not shown") are not among them: those state an absence.
_KNOWLEDGE = (
    r"(?:elucidated|understood|clarified|characteri[sz]ed|established|determined|investigated|"
    r"explored|studied|known|defined|examined|evaluated|assessed|addressed|validated)"
)
_NOT_YET_KNOWN = re.compile(
    rf"\b(?:not|never)\s+(?:(?:yet|been|well|\w+ly)\s+){{0,3}}{_KNOWLEDGE}\b"
)
_KNOWLEDGE_WORD = re.compile(rf"\b{_KNOWLEDGE}\b")
# A cue joined to the next word by a hyphen names a kind, not a negation: "histologically
# not-confirmed appendicitis", "more no-reflow" (normalising turns the hyphen
# into a space, so it is read first). After an auxiliary the hyphen is a dash: "a slower one
# that does not-clarifies our understanding" negates.
_COMPOUND = re.compile(r"\b(not?)-(?=\w)", re.IGNORECASE)
_AUXILIARY = re.compile(
    r"\b(?:do|does|did|is|are|was|were|be|been|has|have|had|can|could|will|would|should|may|"
    r"might|must)\s+$",
    re.IGNORECASE,
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


def is_negated(text: str, *, unknown_negates: bool = False) -> bool:
    """Odd number of negation cues: "not without effect" reads as affirmative.
    ``unknown_negates``: "not yet known" counts as a cue too."""
    return len(_cues(normalise(_compounds_joined(text)), unknown_negates)) % 2 == 1


def _knowledge_words(text: str) -> set[str]:
    """The participles of knowing ("established", "studied") ``text`` says."""
    return set(_KNOWLEDGE_WORD.findall(normalise(text)))


def _compounds_joined(text: str) -> str:
    """``text`` with each compound a cue opens ("not-confirmed") written as one word."""
    return _COMPOUND.sub(
        lambda m: m.group(0) if _AUXILIARY.search(text, 0, m.start()) else m.group(1), text
    )


# A cue after "or" negates an alternative, not the clause: "the difference was weaker or not
# statistically significant", "whether or not", "with or without".
_ALTERNATIVE = re.compile(r"\bor\s+$")


def _cues(normalised: str, unknown_negates: bool = False) -> list[re.Match[str]]:
    """The negation cues of a normalised text, but those that leave a possibility open, say
    what is not yet known (unless ``unknown_negates``), or negate an alternative."""
    open_ = [m.span() for m in _LITOTES.finditer(normalised)]
    if not unknown_negates:
        open_ += [m.span() for m in _NOT_YET_KNOWN.finditer(normalised)]
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
        # A claim that says what is known is compared as it says it.
        said = _knowledge_words(clause) & _knowledge_words(match)
        claim_neg = is_negated(clause, unknown_negates=bool(said))
        evidence_neg = is_negated(match, unknown_negates=bool(said))
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
