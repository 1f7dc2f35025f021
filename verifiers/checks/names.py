"""Names in text: gene, protein and pathogen symbols (IL-6, BRCA1, SARS-CoV-2), drugs by their
INN stems, one key for a name's spellings, and the names a text lists together.

The entity check (``verifiers.checks.entities``), the swapped-name check
(``verifiers.checks.name_slots``) and the entity swaps of the training and evaluation data
(``verifiers.training.claims``) all read names this way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from verifiers.checks.normalise import GREEK_AS_LATIN

# Molecules, statistics and agencies every abstract may name without their being what a claim
# is about, each with the words that spell it out (a text naming those names it as well: "the
# US Food and Drug Administration" names the FDA). Our list: no library ships one. Only names
# of three letters or more: ``symbols`` reads no shorter one.
GENERIC: Mapping[str, str] = {
    "DNA": "deoxyribonucleic acid",
    "RNA": "ribonucleic acid",
    "MRNA": "messenger RNA",
    "ATP": "adenosine triphosphate",
    "ADP": "adenosine diphosphate",
    "AMP": "adenosine monophosphate",
    "GTP": "guanosine triphosphate",
    "NADH": "nicotinamide adenine dinucleotide",
    "NADPH": "nicotinamide adenine dinucleotide phosphate",
    "SEM": "standard error of the mean",
    "IQR": "interquartile range",
    "AUC": "area under the curve",
    "ROC": "receiver operating characteristic",
    "BMI": "body mass index",
    "ICU": "intensive care unit",
    "RCT": "randomized controlled trial",
    "USA": "United States",
    "WHO": "World Health Organization",
    "FDA": "Food and Drug Administration",
    "NIH": "National Institutes of Health",
    "CDC": "Centers for Disease Control",
    # Imaging, tests and scales: an abstract may write them out without defining the short form
    # ("New York Heart Association functional class"), and a window need not name them.
    "MRI": "magnetic resonance imaging",
    "ECG": "electrocardiogram",
    "NYHA": "New York Heart Association",
}
# English words an answer writes in capitals for emphasis or as a label ("IMPORTANT:", "does
# NOT", "NEVER exceed"): no names, though a capital and another make them read as symbols. Only
# words that name no gene or disease as written ("ALL" is a leukaemia, "WAS" a gene), and of
# three letters or more: ``symbols`` reads no shorter one.
_SHOUTED_WORDS = """
    IMPORTANT NOTE WARNING CAUTION ALERT DANGER URGENT CRITICAL REMEMBER DISCLAIMER SUMMARY
    UPDATE TLDR NOT NEVER ALWAYS ONLY MUST SHOULD CANNOT DOES AND BUT THE ANY YES AKA ALSO
    VERY NONE EVERY BOTH AVOID STOP BEFORE AFTER WITHOUT MORE LESS MOST LEAST
"""
_SHOUTED = frozenset(_SHOUTED_WORDS.split())
# Any script's letters and combining marks: a symbol cut at a non-ASCII letter or an accent
# written as a combining mark ("HaMo" of "HaMōriyā") is not one.
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_TOKEN = re.compile(rf"(?<![\w{_MARKS}-])[^\W\d_][\w{_MARKS}]*(?:-[\w{_MARKS}]+)*")
_LOWER_RUN = 4  # a part with this many lower-case letters in a row is a word, not a symbol
_DRUG = re.compile(
    r"(?<![\w-])[a-z]{3,}(?:mab|nib|vir|pril|sartan|olol|statin|azole|cillin|mycin|cycline"
    r"|floxacin|profen|caine|parin|gliptin|glitazone|formin|oxetine|afil|dronate|setron"
    r"|triptan|zepam|azepam|tidine|prazole|platin|taxel|rubicin|mustine|lukast)(?![\w-])",
    re.IGNORECASE,
)

Span = tuple[int, int, str]


def symbols(text: str) -> list[Span]:
    """Gene, protein and pathogen symbols: a capital and then a digit or another capital
    (IL-6, CX3CR1, HbA1c, SARS-CoV-2); hyphenated words ("-deficient") are not part of them,
    and no English word written in capitals for emphasis ("does NOT") is one."""
    found = []
    for m in _TOKEN.finditer(text):
        parts: list[str] = []
        for part in m.group(0).split("-"):
            if _is_word(part):
                break
            parts.append(part)
        symbol = "-".join(parts)
        capitals = sum(c.isupper() for c in symbol)
        if symbol in _SHOUTED:
            continue
        if len(symbol) >= 3 and capitals and (capitals >= 2 or any(c.isdigit() for c in symbol)):
            found.append((m.start(), m.start() + len(symbol), symbol))
    return found


_LETTERS = re.compile(r"[^\W\d_]{3,}")
_SHOUTED_SHARE = 0.8  # of a text's words of three letters or more, written in capitals


def shouted(text: str) -> bool:
    """Whether ``text`` is written in capitals, as a headline is ("VITAMIN D LEVELS MAY IMPACT
    COVID-19 MORTALITY RATES"): there a word's capitals say nothing of its being a name."""
    words = _LETTERS.findall(text)
    return len(words) >= 3 and sum(w.isupper() for w in words) >= _SHOUTED_SHARE * len(words)


def _is_word(part: str) -> bool:
    run = 0
    for char in part:
        run = run + 1 if char.islower() else 0
        if run >= _LOWER_RUN:
            return True
    return False


def drugs(text: str) -> list[Span]:
    """Drug names by their INN stems (ibuprofen, atorvastatin, trastuzumab)."""
    return [(m.start(), m.end(), m.group(0)) for m in _DRUG.finditer(text)]


def names_in(text: str) -> list[Span]:
    """The names of ``text`` (symbols and drugs), in order, the generic ones included; where a
    drug stem lies inside a symbol, the longer."""
    kept: list[Span] = []
    for span in sorted({*symbols(text), *drugs(text)}):
        if kept and span[0] < kept[-1][1]:
            if span[1] - span[0] > kept[-1][1] - kept[-1][0]:
                kept[-1] = span
            continue
        kept.append(span)
    return kept


def specific_names(text: str) -> list[str]:
    """The names of ``text`` (``names_in``) that are not generic ones ("SIK1", not "DNA")."""
    return [name for _, _, name in names_in(text) if name.upper() not in GENERIC]


_SPELLING = re.compile(r"[-\s/]")


def name_key(name: str) -> str:
    """One key for the spellings of a name: case, hyphens, Greek letters and a plural ("TGF-β"
    and "TGFb", "HCC" and "HCCs", "statin" and "statins")."""
    return _SPELLING.sub("", name.translate(GREEK_AS_LATIN).casefold()).removesuffix("s")


# Names of one entity however spelled (as ``name_key``s): a disease and the pathogen answers
# name it by ("the COVID-19 virus" for "the SARS-CoV-2 virus").
SAME_ENTITY = (frozenset({"covid19", "sarscov2", "2019ncov", "covid"}),)
# The same entities written out in words, as the WHO named them ("2019 novel coronavirus",
# "coronavirus disease 2019"); a bare "coronavirus" may be any of the family.
SPELLED_OUT = (
    (re.compile(r"\b(?:novel coronavirus|coronavirus disease)\b", re.IGNORECASE), SAME_ENTITY[0]),
)


# What may stand between two names of one list or apposition: "A and B", "A, B or C", "A/B",
# "A (B)". Words between them ("A or the receptor (B)") end the list.
_LIST_GAP = re.compile(r"[\s,;/()]*(?:(?:and|or|and/or|as well as|nor)[\s,;/()]+)?", re.IGNORECASE)
_LIST_GAP_MAX = 16


def listed_with(
    key: str, names: Sequence[Span], text: str, key_of: Callable[[str], str] = name_key
) -> set[str]:
    """The keys (``key_of``) of the names ``text`` lists together with the name of ``key``
    (directly or along one list), itself included: "Two antibodies, fremanezumab and
    galcanezumab, ... were approved by the FDA" says the same of each, so one for the other is
    no other entity."""
    ordered = sorted(names)
    group_of = list(range(len(ordered)))
    for i in range(1, len(ordered)):
        gap = text[ordered[i - 1][1] : ordered[i][0]]
        if len(gap) <= _LIST_GAP_MAX and _LIST_GAP.fullmatch(gap):
            group_of[i] = group_of[i - 1]
    groups = {group_of[i] for i, (_, _, name) in enumerate(ordered) if key_of(name) == key}
    return {key} | {key_of(n) for i, (_, _, n) in enumerate(ordered) if group_of[i] in groups}
