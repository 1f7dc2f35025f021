"""Text normalisation shared by the checks and the window prefilter.

Abstracts and answers disagree on typography: ligatures (ﬁ), smart quotes, dashes, soft hyphens,
words hyphenated across a line break and runs of whitespace. ``normalise`` removes all of that
so a quote or a token compares equal to its source.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

from verifiers.fold import Folded, fold_char, fold_text

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00ad": None,  # soft hyphen
        "\u200b": None,  # zero-width space
    }
)
# Greek letters as gene and protein symbols spell them in Latin ("\u03b3H2AX" is "gH2AX",
# "IFN\u03b3" is "IFNg", "TGF-\u03b2" is "TGF-b").
GREEK_AS_LATIN = str.maketrans(
    "\u03b1\u03b2\u03b3\u03b4\u03b5\u03ba\u03bb\u03c4\u0391\u0392\u0393\u0394", "abgdekltABGD"
)
# An allele's Greek letter between its gene's symbol and its number, after
# ``GREEK_AS_LATIN``: "APOE ε4", "APOE-epsilon4" and "APOE e4" are APOE4 without it
# (``ALLELE_LETTER.sub(r"\1", text)``); "the epsilon4 allele" and "as early as e16" name none.
ALLELE_LETTER = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z0-9])[\s-](?:epsilon|e)(?=\d)")
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[a-z])-\s*\n\s*(?=[a-z])")
_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
_SPACE = re.compile(r"\s+")
_SUFFIX = re.compile(r"(?:ing|ed|es|e|s)$")
_VOWELS = frozenset("aeiouy")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_CASED_TOKEN = re.compile(_TOKEN.pattern, re.IGNORECASE)
_STOPWORDS = frozenset(
    """
    a an the and or of in on at to for from by with as is are was were be been being this that
    these those it its their there here which who whom whose what when where how than then into
    onto over under about after before between during also may might can could would should
    will shall has have had do does did such other some any each both all most more less very
    we our us you your he she they them his her i me my not no
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


def normalise(text: str) -> str:
    """Casefolded text with typography unified, lookalikes folded as the citation parser folds
    them (:mod:`verifiers.fold`: format characters and combining marks gone, digits in ASCII),
    line-break hyphenation joined, other hyphens read as spaces and whitespace collapsed."""
    return _unified(text).casefold()


def _unified(text: str) -> str:
    """``normalise`` without the casefolding."""
    text = fold_text(unicodedata.normalize("NFKC", text)).translate(_TRANSLATE)
    text = _LINE_BREAK_HYPHEN.sub("", text)
    text = _HYPHEN.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def normalise_mapped(text: str) -> Folded:
    """``normalise`` with a map back to ``text``, character by character (so a quote found in
    an abstract's normalised text has offsets in the abstract as written). Each character is
    folded on its own, so a combining mark is dropped rather than composed: compare only
    texts that went through this function."""
    chars: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        out = (char if char.isascii() else fold_char(char)).translate(_TRANSLATE).casefold()
        chars.extend(out)
        origin.extend([i] * len(out))
    folded = Folded("".join(chars), tuple(origin))
    folded = _rewrite(folded, _LINE_BREAK_HYPHEN, "")
    folded = _rewrite(folded, _HYPHEN, " ")
    folded = _rewrite(folded, _SPACE, " ")
    lead = len(folded.text) - len(folded.text.lstrip())
    kept = len(folded.text.rstrip())
    return Folded(folded.text[lead:kept], folded.origin[lead:kept])


def _rewrite(folded: Folded, pattern: re.Pattern[str], replacement: str) -> Folded:
    """``pattern.sub(replacement)`` keeping the map: a replacement character maps to where the
    match began."""
    chars: list[str] = []
    origin: list[int] = []
    at = 0
    for match in pattern.finditer(folded.text):
        chars.append(folded.text[at : match.start()])
        origin.extend(folded.origin[at : match.start()])
        chars.append(replacement)
        origin.extend([folded.origin[match.start()]] * len(replacement))
        at = match.end()
    chars.append(folded.text[at:])
    origin.extend(folded.origin[at:])
    return Folded("".join(chars), tuple(origin))


def tokens(text: str) -> list[str]:
    """Word tokens of the normalised text."""
    return _TOKEN.findall(normalise(text))


def cased_tokens(text: str) -> list[str]:
    """Word tokens of the text unified as ``normalise`` does, in their written case (an entity
    is told from a word by its capitals); ``token.casefold()`` compares them."""
    return _CASED_TOKEN.findall(_unified(text))


def content_tokens(text: str) -> set[str]:
    """Tokens that carry content (stopwords dropped, common suffixes stripped) for overlap."""
    return set(content_sequence(text))


def as_tokens(words: Iterable[str]) -> frozenset[str]:
    """``words`` as ``content_tokens`` gives them ("reduc" for "reduces", "indicat" for
    "indicates"): a word list to take out of an overlap must be taken out in this form."""
    return frozenset().union(*(content_tokens(word) for word in words))


def with_abbreviations(tokens: set[str], forms: Mapping[str, frozenset[str]]) -> set[str]:
    """``tokens`` plus the long form of every short form in it, and the short form of every
    long form it contains in full (``forms``: short-form token -> its long form's tokens, as
    ``verifiers.windows.Abbreviations`` reads them from an abstract)."""
    expanded = set(tokens)
    for short, long in forms.items():
        if short in tokens:
            expanded |= long
        elif long and long <= tokens:
            expanded.add(short)
    return expanded


@functools.cache
def function_words() -> frozenset[str]:
    """spaCy's English stop words, imported when first needed (spaCy loads in a second or so,
    as the window selector's abbreviation reader does): wider than ``content_tokens``' list
    ("up", "whole"), for a check that must not read meaning into a function word."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def content_sequence(text: str) -> list[str]:
    """``content_tokens`` in the order the text has them, repeats kept."""
    return [_stem(t) for t in tokens(text) if t not in _STOPWORDS]


def _stem(token: str) -> str:
    """A light suffix strip so "increase", "increased" and "increases" meet, and a final "y"
    after a consonant read as the "i" its other forms keep, so "study" meets "studies" and
    "studied" ("studi"); enough for overlap scores, never shown to anyone."""
    if not token.isalpha():
        return token
    if len(token) > 5:
        token = _SUFFIX.sub("", token)
    if len(token) > 3 and token[-1] == "y" and token[-2] not in _VOWELS:
        return token[:-1] + "i"
    return token


# The heading of a structured abstract's section ("BACKGROUND:", "MATERIALS AND METHODS:"):
# structure, not words of the abstract, so no claim's name or wording is found in it.
_SECTION = (
    r"BACKGROUND|INTRODUCTION|CONTEXT|OBJECTIVES?|AIMS?|PURPOSE|METHODS?|MATERIALS|DESIGN|"
    r"SETTINGS?|PARTICIPANTS|PATIENTS|INTERVENTIONS?|MEASUREMENTS|MAIN OUTCOME MEASURES?|"
    r"RESULTS?|FINDINGS|CONCLUSIONS?|INTERPRETATION|SUMMARY|SIGNIFICANCE|MOTIVATION|"
    r"AVAILABILITY|IMPLEMENTATION|CONTACT|SUPPLEMENTARY INFORMATION|UNLABELLED|IMPORTANCE|"
    r"EXPOSURES?|RELEVANCE"
)
_SECTION_LABEL = re.compile(rf"(?:^|(?<=[.!?]\s))(?:{_SECTION})(?:\s+AND\s+(?:{_SECTION}))*:\s*")
_SECTION_WORD = re.compile(rf"(?:{_SECTION})")


def without_section_labels(text: str) -> str:
    """``text`` without the section headings of a structured abstract that open its sentences."""
    return _SECTION_LABEL.sub("", text)


def is_section_label(word: str) -> bool:
    """Whether ``word`` is a section heading of a structured abstract ("RESULTS"), as written."""
    return _SECTION_WORD.fullmatch(word) is not None


NEAR_COPY = 0.6  # share of the claim's content words the evidence sentence must contain


def closest(
    claim_tokens: set[str],
    candidates: Iterable[tuple[str, str]],
    words: Callable[[str], set[str]] = content_tokens,
) -> tuple[str, str] | None:
    """The ``(pmid, text)`` among ``candidates`` that holds the most of ``claim_tokens`` (its
    ``words``), the first on a tie; None unless it is a near copy (``NEAR_COPY``)."""
    best: tuple[float, str, str] | None = None
    for pmid, text in candidates:
        overlap = len(claim_tokens & words(text)) / len(claim_tokens)
        if overlap >= NEAR_COPY and (best is None or overlap > best[0]):
            best = (overlap, pmid, text)
    return None if best is None else (best[1], best[2])
