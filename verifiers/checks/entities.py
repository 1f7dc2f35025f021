"""Named entities a claim must share with the evidence that speaks to it.

A model that read the right abstract still confuses its entities: the comparator for the drug,
one gene for another. Small NLI models barely notice such a swap (answer-level evaluation
caught about one in nine). This check finds the claim's entity names (gene and protein symbols
such as IL-6, BRCA1, SARS-CoV-2; drug names by their stems) and fails when one of them is not in
any evidence window the engine gives it (the windows chosen for the claim; for a claim the model
supports, the window that decided it): such a claim is not ``supported``. On 865 held-out
answers it caught 55% of entities swapped within the abstract (12% before) and cost about 2% of
correct sentences their ``supported`` (``veriproxy eval answers``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.normalise import (
    GREEK_AS_LATIN,
    content_tokens,
    normalise,
    without_section_labels,
)

ENTITY = "entity"
# Molecules and statistics every abstract may name without their being what a claim is about.
GENERIC = frozenset(
    {
        *("DNA", "RNA", "MRNA", "ATP", "ADP", "AMP", "GTP", "NADH", "NADPH"),
        *("CI", "OR", "HR", "RR", "SD", "SE", "SEM", "IQR", "AUC", "ROC", "BMI", "ICU", "RCT"),
        *("US", "USA", "UK", "EU", "WHO", "FDA", "NIH", "CDC"),
    }
)
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
    (IL-6, CX3CR1, HbA1c, SARS-CoV-2); hyphenated words ("-deficient") are not part of them."""
    found = []
    for m in _TOKEN.finditer(text):
        parts: list[str] = []
        for part in m.group(0).split("-"):
            if _is_word(part):
                break
            parts.append(part)
        symbol = "-".join(parts)
        capitals = sum(c.isupper() for c in symbol)
        if len(symbol) >= 3 and capitals and (capitals >= 2 or any(c.isdigit() for c in symbol)):
            found.append((m.start(), m.start() + len(symbol), symbol))
    return found


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


def check_entities(
    claim: str,
    windows: Sequence[tuple[str, str]],
    abbreviations: Mapping[str, Mapping[str, frozenset[str]]] | None = None,
) -> CheckResult | None:
    """None when the claim names no entity; otherwise passed when every name is in one of
    ``windows`` (PMID and text of the evidence that speaks to the claim), as written or, for a
    short form its abstract defines (``abbreviations``: per PMID, short-form token -> the
    content tokens of its long form), spelled out."""
    claim = without_section_labels(claim)  # a heading names nothing, in a claim or its evidence
    found = dict.fromkeys(name for _, _, name in [*symbols(claim), *drugs(claim)])
    names = [name for name in found if name.upper() not in GENERIC]
    if not names:
        return None
    abbreviations = abbreviations or {}
    windows = [(pmid, without_section_labels(text)) for pmid, text in windows]
    missing = []
    found_in: str | None = None
    for name in names:
        pmid = next((p for p, text in windows if _names(name, text, abbreviations.get(p))), None)
        if pmid is None:
            missing.append(name)
        found_in = found_in or pmid
    if missing:
        detail = f"not in the evidence for this claim: {', '.join(missing)}"
        return CheckResult(ENTITY, False, detail)
    return CheckResult(ENTITY, True, f"named in the evidence: {', '.join(names)}", found_in)


def _names(name: str, text: str, forms: Mapping[str, frozenset[str]] | None) -> bool:
    """Whether ``text`` names ``name``: as written (a plural "LVADs" as "LVAD"), or spelled
    out as the long form its abstract defines for it."""
    needle = normalise(name.translate(GREEK_AS_LATIN)).lower()
    haystack = normalise(text.translate(GREEK_AS_LATIN)).lower()
    if needle in haystack or (needle.endswith("s") and needle[:-1] in haystack):
        return True
    short = content_tokens(name.removesuffix("s") if name[-2:-1].isupper() else name)
    if forms is None or len(short) != 1:
        return False
    long = forms.get(next(iter(short)))
    return long is not None and bool(long) and long <= content_tokens(text)


def _run(claim: CheckInput) -> list[CheckResult]:
    # Entities in the windows chosen for the claim (on-topic ones only cost more correct
    # sentences than they catch swaps: measured with ``veriproxy eval answers``).
    windows = [(w.pmid, w.text) for w in claim.windows]
    result = check_entities(claim.text, windows, claim.abbreviations)
    return [] if result is None else [result]


ENTITIES_CHECK = Check("entities", _run, {ENTITY: Effect.WITHHOLDS_SUPPORT})
