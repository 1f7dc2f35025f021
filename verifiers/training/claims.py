"""Rule-based claim rewriting: yes/no questions into declarative claims, and synthetic
contradictions (negation flips, changed numbers and number words, swapped directions and
quantifiers, overstated hedges, reversed comparisons, entities swapped within the abstract,
values taken from another arm or measure of the abstract's sentence)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from verifiers.checks.names import drugs, listed_with, symbols
from verifiers.checks.normalise import content_tokens, is_section_label
from verifiers.lexicons.verbs import BASE_VERBS

_BE = {"is", "are", "was", "were"}
_DO = {"do", "does", "did"}
_HAVE = {"has", "have", "had"}
_MODAL = {"can", "could", "should", "will", "would", "may", "might", "must"}
_BE_START_WORDS = """
    associated related linked correlated a an more less better worse useful effective safe
    necessary possible different superior inferior predictive present absent able likely
    involved responsible required needed sufficient affected influenced caused there still
    really always higher lower increased decreased reduced elevated common frequent rare
    feasible beneficial harmful accurate reliable valid important independent
"""
_BE_STARTS = frozenset(_BE_START_WORDS.split())


def _subject_end(aux: str, words: list[str]) -> int | None:
    """Index of the first word after the subject, or None when no boundary is found."""
    for i, word in enumerate(words[1:], start=1):
        w = word.lower().strip(",")
        if aux in _DO or aux in _MODAL:
            if w in BASE_VERBS or re.fullmatch(r"[a-z]+(ize|ise|ify)", w):
                return i
        elif aux in _BE:
            if w in _BE_STARTS or re.fullmatch(r"[a-z]{4,}ed", w):
                return i
        elif aux in _HAVE and (w in {"been", "a", "an", "any"} or re.fullmatch(r"[a-z]{3,}ed", w)):
            return i
    return None


def question_to_claims(question: str) -> tuple[str, str] | None:
    """``"Does X reduce Y?"`` → (``"X does reduce Y."``, ``"X does not reduce Y."``)."""
    words = question.strip().rstrip("?").split()
    if len(words) < 3 or words[0].lower() not in _BE | _DO | _HAVE | _MODAL:
        return None
    aux = words[0].lower()
    rest = words[1:]
    end = _subject_end(aux, rest)
    if end is None:
        return None
    subject = " ".join(rest[:end])
    subject = subject[0].upper() + subject[1:]
    predicate = " ".join(rest[end:])
    negated = "cannot" if aux == "can" else f"{aux} not"
    return f"{subject} {aux} {predicate}.", f"{subject} {negated} {predicate}."


_NEGATABLE = re.compile(
    r"\b(is|are|was|were|does|do|did|can|could|may|might|will|would|should|has|have)\b"
)
_NEGATED = re.compile(
    r"\b(is|are|was|were|does|do|did|can|could|may|might|will|would|should|has|have) not\b"
)
_OPPOSITES = {
    "increase": "decrease",
    "increases": "decreases",
    "increased": "decreased",
    "increasing": "decreasing",
    "higher": "lower",
    "more": "less",
    "greater": "smaller",
    "improves": "worsens",
    "improved": "worsened",
    "enhances": "reduces",
    "promotes": "inhibits",
    "activates": "inhibits",
    "positively": "negatively",
    "positive": "negative",
    "up-regulates": "down-regulates",
    "upregulates": "downregulates",
    "upregulated": "downregulated",
    "before": "after",
    "above": "below",
    "longer": "shorter",
    "better": "worse",
    "beneficial": "harmful",
    "effective": "ineffective",
    "reduces": "increases",
    "reduced": "increased",
    "reduce": "increase",
    "lowers": "raises",
    "lowered": "raised",
    "suppresses": "stimulates",
    "suppressed": "stimulated",
    "protects": "predisposes",
    "prolongs": "shortens",
    "prolonged": "shortened",
    "gain": "loss",
    "benefit": "harm",
    "superior": "inferior",
    "overexpression": "knockdown",
}
_OPPOSITES |= {v: k for k, v in _OPPOSITES.items() if v not in _OPPOSITES}
# Quantifiers and hedges whose swap changes what the claim asserts.
_QUANTIFIERS = {
    "all": "few",
    "most": "few",
    "majority": "minority",
    "always": "rarely",
    "never": "often",
    "consistently": "rarely",
    "significantly": "marginally",
    "strongly": "weakly",
    "major": "minor",
    "common": "rare",
    "frequent": "rare",
    "high": "low",
    "low": "high",
    "early": "late",
    "late": "early",
    "fewer": "more",
    "minority": "majority",
    "rarely": "frequently",
}
# Number words and fold changes, which the digit rule does not see.
_NUMBER_WORDS = {
    "two": "five",
    "three": "ten",
    "four": "two",
    "five": "two",
    "six": "three",
    "ten": "three",
    "twice": "half",
    "double": "halve",
    "doubled": "halved",
    "halved": "doubled",
    "two-fold": "ten-fold",
    "twofold": "tenfold",
    "three-fold": "two-fold",
    "threefold": "twofold",
    "ten-fold": "two-fold",
    "tenfold": "twofold",
    "half": "twice",
    "single": "double",
    "first": "third",
    "second": "fourth",
}
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.]*\d)")
# Hedges and what a claim that overstates the evidence says instead. Only this direction: a
# hedged claim ("may reduce") is still entailed by a firm finding ("reduces").
_HEDGES = {
    "may": "must",
    "might": "must",
    "could": "must",
    "possibly": "certainly",
    "probably": "certainly",
    "perhaps": "certainly",
    "potentially": "certainly",
    "likely": "certain",
    "possible": "certain",
    "suggest": "prove",
    "suggests": "proves",
    "suggested": "proved",
    "suggesting": "proving",
    "indicate": "prove",
    "indicates": "proves",
    "indicated": "proved",
    "preliminary": "conclusive",
    "tentative": "definitive",
    "putative": "established",
    "unclear": "clear",
}


def negate(claim: str) -> str | None:
    """Flip the first auxiliary's polarity (adds or removes "not")."""
    if _NEGATED.search(claim):
        return _NEGATED.sub(lambda m: m.group(1), claim, count=1)
    if _NEGATABLE.search(claim):
        return _NEGATABLE.sub(lambda m: f"{m.group(1)} not", claim, count=1).replace(
            "can not", "cannot"
        )
    return None


def _swap_first(claim: str, table: dict[str, str]) -> str | None:
    """Replace the first word found in ``table`` with its entry, keeping punctuation."""
    words = claim.split(" ")
    for i, word in enumerate(words):
        bare = word.strip(".,;:()").lower()
        if bare in table:
            new = table[bare]
            start = word.lower().find(bare)
            if word[start : start + 1].isupper():
                new = new[0].upper() + new[1:]
            words[i] = word[:start] + new + word[start + len(bare) :]
            return " ".join(words)
    return None


def swap_direction(claim: str) -> str | None:
    """Replace the first directional word with its opposite."""
    return _swap_first(claim, _OPPOSITES)


def swap_quantifier(claim: str) -> str | None:
    """Replace the first quantifier or hedge with one that asserts something else."""
    return _swap_first(claim, _QUANTIFIERS)


def overstate_hedge(claim: str) -> str | None:
    """Replace the first hedge with certainty ("may reduce" -> "must reduce", "suggests" ->
    "proves"): a claim the hedged evidence does not support."""
    return _swap_first(claim, _HEDGES)


def _name_key(name: str) -> str:
    """One key for a name and its plural ("HCC" and "HCCs", "statin" and "statins"): a swap
    between them changes nothing a reader would call another entity. Narrower than the checks'
    ``names.name_key`` (hyphens, Greek letters) on purpose: the evaluation's perturbations are
    drawn with it and stay comparable across commits."""
    return name.lower().removesuffix("s")


def _is_name(text: str) -> bool:
    """What the symbol finder found is a name: not a section heading ("RESULTS") nor a word in
    capitals ("AND" of "RESULTS AND CONCLUSIONS")."""
    return bool(content_tokens(text)) and not is_section_label(text)


def swap_entity(claim: str, context: str, rng: random.Random) -> str | None:
    """Replace an entity of the claim (a gene or protein symbol, a drug) with another of the
    same kind from ``context``, the abstract it came from: the classic confusion of a model
    that read the right abstract (the comparator for the drug, one gene for another). A
    section heading ("RESULTS") is no name, however the symbol finder reads it (``_is_name``),
    and a name the abstract lists with the one replaced is no other entity to the claim
    (``listed_with``)."""
    kinds = [symbols, drugs]
    rng.shuffle(kinds)
    for find in kinds:
        mine = find(claim)
        present = {_name_key(text) for _, _, text in mine}
        found = find(context)
        others = sorted(
            {text for _, _, text in found if _name_key(text) not in present and _is_name(text)}
        )
        if mine and others:
            start, end, name = rng.choice(mine)
            listed = listed_with(_name_key(name), found, context, _name_key)
            unlisted = [other for other in others if _name_key(other) not in listed]
            if unlisted:
                return claim[:start] + rng.choice(unlisted) + claim[end:]
    return None


def change_number_word(claim: str) -> str | None:
    """Change a number written as a word or a fold change ("two-fold" -> "ten-fold")."""
    return _swap_first(claim, _NUMBER_WORDS)


_COMPARISON = re.compile(
    r"\b(in|of|with|among|for) ([\w-]+(?: [\w-]+){0,2}) "
    r"(?:than|compared with|compared to|versus|vs\.?) "
    r"(?:in |of |with |among |for )?([\w-]+(?: [\w-]+){0,2})",
    re.IGNORECASE,
)


def reverse_comparison(claim: str) -> str | None:
    """``A is higher in X than in Y`` -> ``... in Y than in X`` (the two sides swapped)."""
    m = _COMPARISON.search(claim)
    if not m or m.group(2).lower() == m.group(3).lower():
        return None
    left, right = m.group(2), m.group(3)
    text = m.group(0)
    swapped = text.replace(left, "\0", 1).replace(right, left, 1).replace("\0", right, 1)
    return claim[: m.start()] + swapped + claim[m.end() :]


def change_number(claim: str, rng: random.Random) -> str | None:
    """Scale one number by a factor a reader would call a different value (a 10x dose, ...)."""
    matches = [m for m in _NUMBER.finditer(claim) if m.group(1) not in {"19", "2"}]
    if not matches:
        return None
    m = rng.choice(matches)
    value = float(m.group(1))
    factor = rng.choice((10.0, 0.1, 2.0, 0.5, 3.0))
    new = value * factor if value else rng.choice((5.0, 10.0, 50.0))
    text = f"{new:.0f}" if "." not in m.group(1) and new >= 1 else f"{new:.2g}"
    if text == m.group(1):
        return None
    return claim[: m.start(1)] + text + claim[m.end(1) :]


# A value and what it counts or measures, as a rewrite reads it: "23%", "114 women", "3.3
# mmHg" (a few function words after a number are no unit: "3 and 6 months"). Independent of
# the numbers check, so the evaluation's perturbations do not move with that check's reading.
_VALUE = re.compile(r"(?<![\w.,)])(\d+(?:\.\d+)?)(\s?%|\s+[A-Za-z][\w/-]+)")
_NO_UNIT = frozenset({"and", "or", "to", "of", "in", "vs", "versus", "the", "with", "for", "at"})
_CONTEXT_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def _values(text: str) -> list[tuple[re.Match[str], str]]:
    """The values of ``text`` with their unit words (lower case), years and p values left out."""
    found = []
    for m in _VALUE.finditer(text):
        unit = m.group(2).strip().lower()
        if unit in _NO_UNIT or re.fullmatch(r"(?:19|20)\d\d", m.group(1)):
            continue
        if re.search(r"\b[pP]\s*[=<>]\s*$", text[max(m.start() - 6, 0) : m.start()]):
            continue
        found.append((m, unit))
    return found


def swap_value(claim: str, context: str, rng: random.Random) -> str | None:
    """Replace a value of the claim with another the evidence's sentence stating it gives in
    the same unit: the other arm's rate, the other measure's count ("mortality was 9%" for
    "mortality (1% vs 9%)... reintubation (4% vs 23%)" -> 23%). The classic slip of a model that
    read the right sentence."""
    mine = _values(claim)
    rng.shuffle(mine)
    for m, unit in mine:
        number = m.group(1)
        others = sorted(
            {
                other.group(1)
                for sentence in _CONTEXT_SENTENCE.split(context)
                if any(v.group(1) == number and u == unit for v, u in _values(sentence))
                for other, u in _values(sentence)
                if u == unit and float(other.group(1)) != float(number)
            }
        )
        if others:
            return claim[: m.start(1)] + rng.choice(others) + claim[m.end(1) :]
    return None


# The rewrites a recipe may ask for more of, beyond ``contradict``'s one per claim
# (``Recipe.emphasis``): those a model trained longer learned to let pass (docs/nli-model.md).
EMPHASIS_MAKERS: dict[str, Callable[[str], str | None]] = {
    "direction": swap_direction,
    "quantifier": swap_quantifier,
    "comparison": reverse_comparison,
}


def contradict(claim: str, rng: random.Random, context: str = "") -> str | None:
    """A claim that the evidence supporting ``claim`` would contradict, or None. ``context``:
    the evidence itself, whose other entities may stand in for the claim's."""
    makers: list[Callable[[str], str | None]] = [
        lambda c: change_number(c, rng),
        swap_direction,
        negate,
        swap_quantifier,
        overstate_hedge,
        change_number_word,
        reverse_comparison,
        lambda c: swap_entity(c, context, rng),
    ]
    rng.shuffle(makers)
    for make in makers:
        made = make(claim)
        if made and made != claim:
            return made
    return None
