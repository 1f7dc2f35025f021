"""Direction flips: a claim that copies its evidence but swaps a direction word.

Small NLI models read "increased" and "decreased" (or "inhibits" and "activates") in otherwise
identical sentences as near-identical. This check finds the evidence clause closest to the
claim by content words (direction words left out of the overlap) and, when they are near
copies, fails if the claim's direction words all point one way and the clause's the other.
Negated sentences are left to the negation check ("did not increase" is not "decreased").

A comparison names two sides, and reads the same with its word and its sides both turned
round ("higher in men than in women" is "lower in women than in men"). Its sides are read
apart: the words after "than" and, where a preposition follows "than", the words after the same
preposition before it ("higher in male patients than in female patients"), else the words
before the comparative ("lipase is a more accurate biomarker than amylase"). Against the
closest comparison of the evidence (a near copy), ``comparison`` fails where the sides stand
the other way round under the same direction, or the same way under the other direction: the
small model reads "higher in female patients than in male patients" as the evidence's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.negation import is_negated
from verifiers.checks.normalise import NEAR_COPY, as_tokens, closest, content_tokens, normalise

_UP = """increase increases increased increasing rise rises rose raise raises raising raised
    elevated elevation higher greater more improve improves improved improvement enhance enhances
    enhanced promote promotes promoted activate activates activated stimulate stimulates stimulated
    upregulate upregulates upregulated upregulation induce induces induced gain longer prolonged
    better beneficial superior positively positive overexpression accelerated accelerates faster"""
_DOWN = """decrease decreases decreased decreasing fall falls fell lowers lowering lowered reduced
    reduce reduces reduction lower smaller less fewer worsen worsens worsened impair impairs
    impaired inhibit inhibits inhibited suppress suppresses suppressed downregulate downregulates
    downregulated downregulation attenuate attenuates attenuated blocks blocked loss shorter
    shortened worse harmful inferior negatively negative knockdown slowed slows slower"""
_SIGN = {w: 1 for w in _UP.split()} | {w: -1 for w in _DOWN.split()}
_WORD = re.compile(r"[a-z]+")
# A word after a hyphen describes a name and states no change: "LPS-induced inflammation",
# "contrast-enhanced MRI", "HER2-positive", "non-inferior" ("up-regulated" is a change).
_AFTER_HYPHEN = re.compile(r"(?<=[a-z0-9])(?<!\bup)(?<!\bdown)[-\u2010\u2011][a-z]+", re.IGNORECASE)
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
        normalise(_AFTER_HYPHEN.sub("", text))
        .replace("up regulat", "upregulat")
        .replace("down regulat", "downregulat")
    )
    signs = {_SIGN[w] for w in _WORD.findall(normalised) if w in _SIGN}
    return signs.pop() if len(signs) == 1 else 0


def clause_candidates(sentences: Sequence[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """Each sentence (PMID, text) and its clauses ("X rose, whereas Y fell"), shortest first,
    so that a clause wins over its sentence when both hold a claim equally well."""
    for pmid, text in sentences:
        for clause in sorted({text, *_CLAUSE.split(text)}, key=len):
            yield pmid, clause


# Left out of the overlap that finds a claim's closest clause, on both sides: counted, a flipped
# word is a word the evidence lacks, and a short claim that flips its clause is no near copy.
_DIRECTION_TOKENS = as_tokens(_SIGN)


def _content(text: str) -> set[str]:
    return content_tokens(text) - _DIRECTION_TOKENS


def _copies(claim_tokens: set[str], clause: str) -> bool:
    """Whether ``clause``'s content words are mostly ``claim_tokens``."""
    words = _content(clause)
    return bool(words) and len(words & claim_tokens) / len(words) >= NEAR_COPY


def check_direction(claim: str, sentences: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Compare the claim's direction with the closest of ``sentences`` (PMID, text). None when
    the claim has no one-way direction, is negated or comparative, or nothing is a near copy."""
    claim_sign = direction(claim)
    if claim_sign == 0 or is_negated(claim) or _COMPARATIVE.search(normalise(claim)):
        return None
    claim_tokens = _content(claim)
    if not claim_tokens:
        return None
    # The sentence and its clauses: the closest one decides. Where it points no one way (both
    # ways, "X decreased A but increased B", or none, a design sentence), the clauses that
    # point one way and are near copies both ways (their words mostly the claim's too: a clause
    # the splitter cut badly, or one on another subject sharing some words, is none) decide,
    # if they all point the same way.
    candidates = list(clause_candidates(sentences))
    found = closest(claim_tokens, candidates, _content)
    if found is not None and direction(found[1]) == 0:
        signs = {c: s for c in candidates if (s := direction(c[1])) and _copies(claim_tokens, c[1])}
        if len(set(signs.values())) > 1:
            return None  # "increased in A, while they were decreased in B"
        found = closest(claim_tokens, signs, _content)
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


COMPARISON = "comparison"  # the name of a comparison's results
_THAN = re.compile(
    r"\bthan\s+(?:(?P<preposition>in|with|among|for|at|on|after|during|by|from)\s+)?"
    r"(?P<second>[^,;:()\[\]]+)",
    re.IGNORECASE,
)
_A_BOUND = re.compile(r"[\d.]|(?:a|an|one|two|three|half|twice)\b", re.IGNORECASE)
_COMPARATIVE_REACH = 6  # words before "than" in which the comparative word stands
# Comparatives of size, which point a comparison one way but no change ("older patients").
_SIZE_SIGN = {"heavier": 1, "larger": 1, "bigger": 1, "wider": 1, "thicker": 1, "stronger": 1}
_SIZE_SIGN |= {"lighter": -1, "narrower": -1, "thinner": -1, "weaker": -1, "shallower": -1}


@dataclass(frozen=True, slots=True)
class _Sides:
    """A comparison: its direction and the content words only each side holds."""

    sign: int
    first: frozenset[str]
    second: frozenset[str]


def _sides(text: str) -> _Sides | None:
    """The one comparison of ``text`` ("X higher in A than in B"), or None: no "than", more
    than one, a bound ("more than 50%", "less than one third"), no direction word before it,
    or no words to read a side from."""
    found = list(_THAN.finditer(text))
    if len(found) != 1 or _A_BOUND.match(found[0].group("second")):
        return None
    than = found[0]
    before = _CLAUSE.split(text[: than.start()])[-1]
    words = _WORD.findall(normalise(before))[-_COMPARATIVE_REACH:]
    signs = [word_sign(w) or _SIZE_SIGN.get(w, 0) for w in words]
    sign = next((s for s in reversed(signs) if s), 0)
    preposition = than.group("preposition")
    if preposition:
        at = [m.end() for m in re.finditer(rf"\b{preposition}\s+", before, re.IGNORECASE)]
        first = before[at[-1] :] if at else ""
    else:
        first = re.split(r"\bthat\s+", before)[-1]
    first_words = _content(first) - _SIZE_SIGN.keys()
    second_words = _content(than.group("second"))
    if not sign or not first_words or not second_words:
        return None
    return _Sides(
        sign, frozenset(first_words - second_words), frozenset(second_words - first_words)
    )


def check_comparison(claim: str, sentences: Sequence[tuple[str, str]]) -> CheckResult | None:
    """A failed ``comparison`` where the claim's comparison turns the closest comparison of
    ``sentences`` (PMID, text) round (see the module's docstring); None otherwise: a
    comparison that agrees shows no more than the other checks read."""
    ours = _sides(claim)
    if ours is None or is_negated(claim):
        return None
    compared = [(pmid, text) for pmid, text in sentences if _THAN.search(text)]
    found = closest(_content(claim), compared, _content)
    if found is None or is_negated(found[1]) or (theirs := _sides(found[1])) is None:
        return None
    crossed = bool(ours.second & theirs.first) and bool(ours.first & theirs.second)
    kept = bool(ours.second & theirs.second) and not ours.second & theirs.first
    if (crossed and not ours.second & theirs.second and ours.sign == theirs.sign) or (
        kept and ours.sign != theirs.sign
    ):
        detail = (
            f"the comparison turned round: the evidence says \u201c{found[1].strip()[:160]}\u201d"
        )
        return CheckResult(COMPARISON, False, detail, found[0])
    return None


def _run(claim: CheckInput) -> list[CheckResult]:
    results = (
        check_direction(claim.text, claim.sentences),
        check_comparison(claim.text, claim.sentences),
    )
    return [r for r in results if r is not None]


DIRECTION_CHECK = Check(
    DIRECTION, _run, {DIRECTION: Effect.CONTRADICTS, COMPARISON: Effect.CONTRADICTS}
)
