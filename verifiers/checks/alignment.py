"""Aligned changes: a claim that copies its evidence word for word except where it changed it.

An answer that quotes or restates its evidence nearly verbatim differs from it only where the
writer changed something, and small NLI models read such near copies as the same sentence.
Aligning the two word sequences (``difflib.SequenceMatcher``: longest matching blocks) shows
each place that differs; a difference with copied words around it is read as a change when it
puts in the claim:

- another number (digits or number words: "1 and 2" -> "2 and 2", "twice" -> "half");
- the opposite direction or the other side of a scale ("decreased" -> "increased", "high" ->
  "low", "beneficial" -> "harmful", "benefit" -> "harm"), also where a claim cut from its
  sentence at a clause ends on the changed word;
- the two sides of a comparison the other way round ("in A than in B" -> "in B than in A"),
  unless the direction word was flipped too (that restates the same finding);
- another name where the evidence names an entity ("CYP3A4" -> "CYP", "TH1579" -> "DNA").

The first three contradict (``aligned_change``); a changed name withholds support, and so does
a flip inside a negated claim ("was not significantly increased" for "... reduced": the claim
is not what the evidence says, but not its opposite either) (``aligned_unstated``).

Paraphrase is left to the model: only a claim whose words mostly appear in order in one evidence
sentence (``NEAR_COPY``) is read, and only short differences anchored by copied words on both
sides (or at the claim's start or end).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.direction import word_sign
from verifiers.checks.negation import is_negated
from verifiers.checks.normalise import (
    ALLELE_LETTER,
    GREEK_AS_LATIN,
    NEAR_COPY,
    cased_tokens,
    content_tokens,
    without_section_labels,
)
from verifiers.checks.numbers import stated_values
from verifiers.checks.qualifiers import scale_side

ALIGNED_CHANGE = "aligned_change"
ALIGNED_UNSTATED = "aligned_unstated"
MAX_CHANGE_WORDS = 3  # a longer difference is a rewording, not a changed word
MAX_SIDE_WORDS = 16  # the longest run read for a comparison's sides swapped
_CANDIDATES = 3  # evidence sentences aligned per claim, by content overlap

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NUMBER_WORDS = {
    "zero": 0.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0,
    "seven": 7.0, "eight": 8.0, "nine": 9.0, "ten": 10.0, "eleven": 11.0, "twelve": 12.0,
    "twenty": 20.0, "thirty": 30.0, "forty": 40.0, "fifty": 50.0, "hundred": 100.0,
    "thousand": 1000.0, "once": 1.0, "twice": 2.0, "thrice": 3.0, "single": 1.0,
    "double": 2.0, "doubled": 2.0, "triple": 3.0, "tripled": 3.0, "half": 0.5, "halve": 0.5,
    "halved": 0.5, "twofold": 2.0, "threefold": 3.0, "fourfold": 4.0, "fivefold": 5.0,
    "tenfold": 10.0, "hundredfold": 100.0, "first": 1.0, "second": 2.0, "third": 3.0,
    "fourth": 4.0, "fifth": 5.0, "sixth": 6.0, "seventh": 7.0, "eighth": 8.0, "ninth": 9.0,
    "tenth": 10.0,
}  # fmt: skip
# Gradable opposites the direction words and quantity scales do not hold.
_OPPOSITES = {
    frozenset(pair.split("/"))
    for pair in """high/low large/small long/short strong/weak present/absent presence/absence
        sensitive/resistant sensitivity/resistance benign/malignant safe/unsafe
        effective/ineffective efficacious/inefficacious agonist/antagonist older/younger
        old/young maximum/minimum upper/lower heavy/light wide/narrow thick/thin
        acute/chronic before/after raise/lower raises/lowers above/below inside/outside
        first/last benefit/harm benefits/harms
        benefited/harmed""".split()  # noqa: SIM905 (a word list reads better as text)
}
# A comparison names two sides; their order is its meaning.
_ROMAN = re.compile(r"[IVX]+")
_COMPARATIVE = frozenset({"than", "compared", "versus", "vs", "relative"})


@dataclass(frozen=True, slots=True)
class _Difference:
    """One place where the claim (``ours``) differs from the evidence (``theirs``)."""

    ours: tuple[str, ...]  # the claim's words there, as written
    theirs: tuple[str, ...]
    inner: bool = True  # copied words on both sides (else at the claim's start or end)
    # At the claim's edge, facing as many evidence words as it has, of a longer run: only a
    # changed name is read there ("DNA is" facing "TH1579 as" of "we describe TH1579 as"), or
    # one word turned into its opposite ("is low" facing "is high, and seems ...").
    facing: bool = False

    def __str__(self) -> str:
        ours, theirs = " ".join(self.ours), " ".join(self.theirs)
        return f"\u2018{ours}\u2019 where the evidence says \u2018{theirs}\u2019"


_Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Alignment:
    """A claim aligned with one evidence sentence."""

    claim: list[str]
    evidence: list[str]
    span: list[str]  # the evidence words facing the claim, from its first copied word to its last
    copied: int  # claim words found in order in the evidence
    differences: list[_Difference]  # anchored differences of at most MAX_CHANGE_WORDS words
    ops: tuple[_Opcode, ...] = ()  # difflib's opcodes, claim against the whole evidence


def _words(text: str) -> list[str]:
    """The text's word tokens as written, Greek letters spelled as symbols spell them in Latin
    ("\u03b3H2AX" is "gH2AX", "IFN\u03b3" is "IFNg") and an allele's letter dropped ("APOE
    \u03b54" is "APOE4")."""
    return cased_tokens(ALLELE_LETTER.sub(r"\1", text.translate(GREEK_AS_LATIN)))


def _keys(words: Sequence[str]) -> list[str]:
    return [w.casefold() for w in words]


def _held(ops: Sequence[_Opcode], k: int, step: int, claim: list[str]) -> tuple[bool, bool]:
    """Whether the difference ``ops[k]`` is held in place on one side (``step`` -1: before it,
    +1: after it) by copied words holding a content word ("of the" matches anywhere), read
    past evidence words the claim leaves out; and whether that side reaches the claim's edge
    with no such word (the claim opens or ends with its change)."""
    j = k + step
    while 0 <= j < len(ops):
        tag, i1, i2, _, _ = ops[j]
        if tag == "equal" and content_tokens(" ".join(claim[i1:i2])):
            return True, False
        if tag in ("replace", "delete"):
            return False, False
        j += step
    return False, True


def _align(claim: list[str], evidence: list[str]) -> _Alignment:
    matcher = SequenceMatcher(None, _keys(claim), _keys(evidence), autojunk=False)
    ops = matcher.get_opcodes()
    differences: list[_Difference] = []
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "replace" or i2 - i1 > MAX_CHANGE_WORDS:
            continue
        before, opens = _held(ops, k, -1, claim)
        after, ends = _held(ops, k, 1, claim)
        ours = tuple(claim[i1:i2])
        if before and after and j2 - j1 <= MAX_CHANGE_WORDS:
            differences.append(_Difference(ours, tuple(evidence[j1:j2])))
        elif ((after and opens) or (before and ends)) and j2 - j1 == i2 - i1:
            # The claim opens or ends with its change, one word for one: held on one side,
            # a difference of another length could face any of the evidence's words.
            differences.append(_Difference(ours, tuple(evidence[j1:j2]), inner=False))
        elif after and opens and j2 - j1 > i2 - i1:
            facing = tuple(evidence[j2 - (i2 - i1) : j2])  # the words right before the copy
            differences.append(_Difference(ours, facing, inner=False, facing=True))
        elif before and ends and j2 - j1 > i2 - i1:
            facing = tuple(evidence[j1 : j1 + (i2 - i1)])  # the words right after the copy
            differences.append(_Difference(ours, facing, inner=False, facing=True))
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return _Alignment(claim, evidence, [], 0, [])
    first, last = blocks[0], blocks[-1]
    start = max(first.b - first.a, 0)
    end = min(last.b + last.size + len(claim) - last.a - last.size, len(evidence))
    copied = sum(b.size for b in blocks)
    return _Alignment(claim, evidence, evidence[start:end], copied, differences, tuple(ops))


def _value(word: str) -> float | None:
    key = word.casefold()
    if _NUMBER.fullmatch(key):
        return float(key)
    return _NUMBER_WORDS.get(key)


def _changed_number(diff: _Difference) -> bool:
    if len(diff.ours) != len(diff.theirs):  # "3 of 10" for "30": a rewording
        return False
    values = [(_value(a), _value(b)) for a, b in zip(diff.ours, diff.theirs, strict=True)]
    return any(a is not None and b is not None and a != b for a, b in values)


def _placed_elsewhere(diff: _Difference, evidence: Sequence[str]) -> bool:
    """A claim that opens or ends with its number faces the words the alignment guessed: one
    that writes only numbers the evidence sentence states elsewhere changed none ("Twenty-six
    patients had a tumour" facing "Of 83" of "Of 83 patients examined, 26 were found to have
    a tumour"). Numbers inside the copy are held in place: swapped there, they changed."""
    if diff.inner:
        return False
    ours = stated_values(" ".join(diff.ours))
    return bool(ours) and set(ours) <= set(stated_values(" ".join(evidence)))


def _opposite(ours: str, theirs: str) -> bool:
    a, b = ours.casefold(), theirs.casefold()
    if word_sign(a) * word_sign(b) == -1:
        return True
    side_a, side_b = scale_side(a), scale_side(b)
    if side_a and side_b and side_a[0] == side_b[0] and side_a[1] != side_b[1]:
        return True
    return frozenset((a, b)) in _OPPOSITES


def _flipped(diff: _Difference) -> tuple[str, str] | None:
    """The pair of opposite words the difference swaps, if it swaps one."""
    for a in diff.ours:
        for b in diff.theirs:
            if _opposite(a, b):
                return a.casefold(), b.casefold()
    return None


def _is_name(word: str) -> bool:
    """A symbol or code rather than a word: capitals after the first letter, or letters and
    digits together (CYP3A4, TH1579, DNA), but not a Roman numeral (phase III)."""
    has_letters = any(c.isalpha() for c in word)
    coded = any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word)
    return has_letters and coded and not _ROMAN.fullmatch(word)


def _same_name(ours: str, theirs: str) -> bool:
    """Two spellings of one name: a plural, a one-letter lower-case prefix ("gH2AX" and "H2AX",
    "hTERT" and "TERT"), a lower-case or hyphenated ending ("TNFa", "COVID-19"), or one inside
    the other. A name that extends another with capitals or digits is a more specific one, and
    not the same ("CYP3A4" is not "CYP", "SCUBE3" not "SCUBE", "L124D" not "L124"); so is one
    with a longer prefix ("lncRNAs" is not "RNAs"), and a plural does not grow a lower-case
    ending ("RNAs" is not "RNase")."""
    a, b = ours.casefold(), theirs.casefold()
    if a in (b, b + "s", b + "es") or b in (a + "s", a + "es"):
        return True
    short, longer = (ours, theirs) if len(a) < len(b) else (theirs, ours)
    key = longer.casefold()
    if key.startswith(short.casefold()):
        rest = longer[len(short) :]
        return rest.startswith("-") or (rest.islower() and not short[-1].islower())
    if key.endswith(short.casefold()):
        prefix = longer[: len(longer) - len(short)]
        return len(prefix) == 1 and prefix.islower()
    return short.casefold() in key


def _renamed(
    diff: _Difference, claim: Counter[str], span: Counter[str], evidence: set[str]
) -> bool:
    """The difference puts another name where the evidence has one: not another spelling of
    it (``_same_name``), nor two names the claim and the evidence it faces hold as often, in
    another order ("AVP is the homolog of AVT" for "AVT is ... of AVP"). Held on one side only,
    a name the evidence sentence uses elsewhere is no swap."""
    if len(diff.ours) != len(diff.theirs):
        return _term_renamed(diff, claim, span)
    for ours, theirs in zip(diff.ours, diff.theirs, strict=True):
        a, b = ours.casefold(), theirs.casefold()
        if not (_is_name(ours) and _is_name(theirs)) or _same_name(ours, theirs):
            continue
        if all(claim[n] == span[n] for n in (a, b)) or (not diff.inner and a in evidence):
            continue
        return True
    return False


def _term_renamed(diff: _Difference, claim: Counter[str], span: Counter[str]) -> bool:
    """One name put for a term the tokens cut in parts ("GPU" where the evidence says
    "BS-seq", "AUC" for "ORMD-0801", "MTD" for "LB-100"), or the other way round; not the
    same term written joined or apart ("IL6" for "IL-6"). Only inside copied words: at the
    claim's edge the parts could face anything."""
    sides = sorted((diff.ours, diff.theirs), key=len)
    if not diff.inner or len(sides[0]) != 1:
        return False
    (single,), parts = sides
    if not _is_name(single) or not any(_is_name(p) for p in parts):
        return False
    if _same_name(single, "".join(parts)) or any(_same_name(single, p) for p in parts):
        return False
    names = [w.casefold() for w in (single, *parts) if _is_name(w)]
    return not all(claim[n] == span[n] for n in names)


def _middles(alignment: _Alignment) -> tuple[list[str], list[str]]:
    """The claim's and the evidence span's words between their common start and end."""
    a, b = _keys(alignment.claim), _keys(alignment.span)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return a[head : len(a) - tail], b[head : len(b) - tail]


def _reordered(ours: list[str], theirs: list[str]) -> bool:
    return ours != theirs and sorted(ours) == sorted(theirs)


def _without(words: list[str], word: str) -> list[str]:
    rest = list(words)
    rest.remove(word)
    return rest


def _sides_swapped(alignment: _Alignment, flip: tuple[str, str] | None) -> bool:
    """The comparison's sides are the other way round (with ``flip``'s words set aside: "higher
    in A than B" restated as "lower in B than A" swaps both)."""
    ours, theirs = _middles(alignment)
    if not _COMPARATIVE & set(_keys(alignment.claim)):
        return False
    if flip is not None:
        if flip[0] not in ours or flip[1] not in theirs:
            return False
        ours, theirs = _without(ours, flip[0]), _without(theirs, flip[1])
    return _reordered(ours, theirs)


def _crossed(ours: list[str], theirs: list[str]) -> bool:
    """The words on either side of the comparison word changed sides: some before it in the
    claim are after it in the evidence, and some after it are before it."""
    word = next((w for w in ours if w in _COMPARATIVE and w in theirs), None)
    if word is None:
        return False
    i, j = ours.index(word), theirs.index(word)
    left, right = content_tokens(" ".join(ours[:i])), content_tokens(" ".join(ours[i + 1 :]))
    their_left = content_tokens(" ".join(theirs[:j]))
    their_right = content_tokens(" ".join(theirs[j + 1 :]))
    return bool(left & their_right) and bool(right & their_left)


def _swapped_run(alignment: _Alignment) -> bool:
    """A run of the claim held by copied words on both sides that holds the evidence's words
    there in another order, the comparison's sides crossed ("lower in the patients given
    placebo than in the patients given ketamine before surgery" for the other order): sides
    longer than ``_middles`` reads, in a claim that also rewords its opening."""
    ops = alignment.ops
    claim, evidence = _keys(alignment.claim), _keys(alignment.evidence)
    for k1 in range(1, len(ops) - 1):
        if ops[k1][0] == "equal":
            continue
        for k2 in range(k1, len(ops) - 1):
            i1, i2, j1, j2 = ops[k1][1], ops[k2][2], ops[k1][3], ops[k2][4]
            if max(i2 - i1, j2 - j1) > MAX_SIDE_WORDS:
                break
            if ops[k2][0] == "equal":
                continue
            ours, theirs = claim[i1:i2], evidence[j1:j2]
            if _reordered(ours, theirs) and _crossed(ours, theirs):
                return True
    return False


def _results(alignment: _Alignment, pmid: str, text: str, negated: bool) -> list[CheckResult]:
    quoted = f": \u201c{text.strip()[:160]}\u201d"
    changes: list[str] = []
    unstated: list[str] = []
    flips = [f for d in alignment.differences if not d.facing and (f := _flipped(d)) is not None]
    flip = flips[0] if len(flips) == 1 else None
    # The comparison's sides swapped: a change on its own, a restatement with its word flipped.
    swapped = len(flips) <= 1 and _sides_swapped(alignment, flip)
    swapped = swapped or (not flips and _swapped_run(alignment))
    claim_words, span_words = Counter(_keys(alignment.claim)), Counter(_keys(alignment.span))
    evidence_words = set(_keys(alignment.evidence))
    for diff in alignment.differences:
        if diff.facing:
            if _renamed(diff, claim_words, span_words, evidence_words):
                unstated.append(f"another name: {diff}")
            elif len(diff.ours) == 1 and _flipped(diff) is not None:
                # A claim cut from its sentence at a clause ("the refusal rate is low" of "...
                # is high, and seems related to ..."): its last word faces the evidence's own.
                (unstated if negated else changes).append(f"the other way: {diff}")
        elif _changed_number(diff) and not _placed_elsewhere(diff, alignment.evidence):
            changes.append(f"another number: {diff}")
        elif swapped:
            continue  # its words are the sides'
        elif _flipped(diff) is not None:
            (unstated if negated else changes).append(f"the other way: {diff}")
        elif _renamed(diff, claim_words, span_words, evidence_words):
            unstated.append(f"another name: {diff}")
    if swapped and flip is None:
        changes.append("the sides of the comparison the other way round")
    results = [
        CheckResult(ALIGNED_CHANGE, False, f"copies the evidence with {c}{quoted}", pmid)
        for c in changes
    ] + [
        CheckResult(ALIGNED_UNSTATED, False, f"copies the evidence with {u}{quoted}", pmid)
        for u in unstated
    ]
    if results:
        return results
    return [CheckResult(ALIGNED_CHANGE, True, "copies the evidence without a change", pmid)]


def _nearest(claim: str, sentences: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The ``_CANDIDATES`` sentences sharing most content words with the claim (at least
    ``NEAR_COPY`` of them), most first."""
    tokens = content_tokens(claim)
    if not tokens:
        return []
    shared = [len(tokens & content_tokens(text)) for _, text in sentences]
    order = sorted(
        (i for i, n in enumerate(shared) if n >= NEAR_COPY * len(tokens)), key=lambda i: -shared[i]
    )
    return [sentences[i] for i in order[:_CANDIDATES]]


def check_alignment(claim: str, sentences: Sequence[tuple[str, str]]) -> list[CheckResult]:
    """Align the claim with the evidence sentences (PMID, text) it shares most words with and
    report the changes of the closest copy (see the module's docstring); a copy without a
    change wins a tie. Empty when none is a near copy."""
    words, negated = _words(without_section_labels(claim)), is_negated(claim)
    best: tuple[int, int, list[CheckResult]] | None = None
    for pmid, text in _nearest(claim, sentences):
        alignment = _align(words, _words(without_section_labels(text)))
        if alignment.copied < NEAR_COPY * len(words):
            continue
        results = _results(alignment, pmid, text, negated=negated)
        failed = sum(not r.passed for r in results)
        if best is None or (alignment.copied, -failed) > best[:2]:
            best = (alignment.copied, -failed, results)
    return [] if best is None else best[2]


def _run(claim: CheckInput) -> list[CheckResult]:
    return check_alignment(claim.text, claim.sentences)


ALIGNMENT_CHECK = Check(
    "alignment",
    _run,
    {ALIGNED_CHANGE: Effect.CONTRADICTS, ALIGNED_UNSTATED: Effect.WITHHOLDS_SUPPORT},
)
