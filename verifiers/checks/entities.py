"""Named entities a claim must share with the evidence that speaks to it.

A model that read the right abstract still confuses its entities: the comparator for the drug,
one gene for another. Small NLI models barely notice such a swap (answer-level evaluation
caught about one in nine). This check finds the claim's entity names (gene and protein symbols
such as IL-6, BRCA1, SARS-CoV-2; drug names by their stems) and fails when one of them is not in
any evidence window the engine gives it (the windows chosen for the claim; for a claim the model
supports, the window that decided it): such a claim is not ``supported``. On 865 held-out
answers it caught 55% of entities swapped within the abstract (12% before) and cost about 2% of
correct sentences their ``supported`` (``veriproxy eval answers``).

A generic name (a molecule, statistic or agency: "DNA", "AUC", "FDA") is no entity to look for
in the windows, since an abstract names one anywhere; but a claim naming one that its cited
evidence never names, as written or spelled out, says what the evidence does not ("AUC was well
tolerated" quoting "ORMD-0801 ... well tolerated"), and fails ``entity`` as well. On the same
held-out answers with quotes: 3 more swaps caught, 2 correct sentences lost their ``supported``
(each states an approval or a molecule its quote does not).

A name that is in the evidence may still be the wrong one: in another's place
(``verifiers.checks.name_slots``). Such a claim fails ``swapped_entity``, which withholds
support as a missing name does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.name_slots import Swap, misdefined_names, swapped_names
from verifiers.checks.names import (
    GENERIC,
    SAME_ENTITY,
    SPELLED_OUT,
    drugs,
    name_key,
    names_in,
    shouted,
    symbols,
)
from verifiers.checks.normalise import (
    ALLELE_LETTER,
    GREEK_AS_LATIN,
    content_sequence,
    content_tokens,
    function_words,
    normalise,
    without_section_labels,
)

ENTITY = "entity"
_PREFIX_LETTERS = 4  # a bare term's word this long may stand for a longer form of it
# Where a bare term lists several ("ExpansionHunter and ExpansionHunter Denovo"): each is read.
_CONJUNCTS = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or|and/or)\s+", re.IGNORECASE)
SWAPPED_ENTITY = "swapped_entity"


def check_entities(
    claim: str,
    windows: Sequence[tuple[str, str]],
    abbreviations: Mapping[str, Mapping[str, frozenset[str]]] | None = None,
    defined: Mapping[str, frozenset[str]] | None = None,
) -> CheckResult | None:
    """None when the claim names no entity; otherwise passed when every name is in one of
    ``windows`` (PMID and text of the evidence that speaks to it), as written, spelled
    otherwise ("COVID19", "T(H)2") or, for a short form its abstract defines
    (``abbreviations``: per PMID, short-form token -> the content tokens of its long form) or,
    where the abstract does not, the claim itself (``defined``), spelled out, and where neither
    does, as the words its initials give ("iPSC"). In a claim written in capitals only a name
    with a digit counts ("COVID-19", not "MORTALITY")."""
    claim = without_section_labels(claim)  # a heading names nothing, in a claim or its evidence
    found = dict.fromkeys(name for _, _, name in [*symbols(claim), *drugs(claim)])
    names = [name for name in found if name.upper() not in GENERIC]
    if shouted(claim):
        names = [name for name in names if any(c.isdigit() for c in name)]
    if not names:
        return None
    abbreviations = abbreviations or {}
    windows = [(pmid, without_section_labels(text)) for pmid, text in windows]
    missing = []
    found_in: str | None = None
    for name in names:
        # A short form the claim gives in brackets ("... in adults (MIS-A)") stands for its long
        # form, not for another entity's names.
        aliases = f"({name})" not in claim
        # As written in any window first: the other readings cost more, and most names are.
        pmid = next((p for p, text in windows if _written(name, text)), None) or next(
            (
                p
                for p, text in windows
                if _names(name, text, abbreviations.get(p), defined, aliases=aliases)
            ),
            None,
        )
        if pmid is None:
            missing.append(name)
        found_in = found_in or pmid
    if missing:
        detail = f"not in the evidence for this claim: {', '.join(missing)}"
        return CheckResult(ENTITY, False, detail)
    return CheckResult(ENTITY, True, f"named in the evidence: {', '.join(names)}", found_in)


def check_generic_names(claim: str, texts: Sequence[tuple[str, str]]) -> CheckResult | None:
    """A failed result naming the claim's generic names ("FDA", "AUC", "DNA") that none of
    ``texts`` (PMID and text: all the evidence cited for the claim) names, as written or spelled
    out ("Food and Drug Administration"); None when it names each, names none, or there is no
    evidence to read."""
    claim = without_section_labels(claim)
    found = dict.fromkeys(name for _, _, name in symbols(claim) if name.upper() in GENERIC)
    if not found or not texts:
        return None  # read no evidence for the many claims that name nothing generic
    read = [without_section_labels(text) for _, text in texts]
    missing = [name for name in found if not any(_names_generic(name, t) for t in read)]
    if not missing:
        return None
    return CheckResult(ENTITY, False, f"not in the cited evidence: {', '.join(missing)}")


def check_cited_term(term: str, texts: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Whether one of ``texts`` (PMID and text of the records cited) states ``term``, a bare
    list item that names no symbol or drug ("Hirschsprung disease", "fever"): its content words
    in a row, as ``content_tokens`` reads them ("seizures" in "seizure"). None when it has no
    content word or nothing is cited."""
    parts = [p for p in _CONJUNCTS.split(without_section_labels(term)) if content_sequence(p)]
    if not parts or not texts:
        return None
    read = [(pmid, content_sequence(without_section_labels(text))) for pmid, text in texts]
    missing, found_in = [], None
    for part in parts:
        wanted = content_sequence(part)
        pmid = next(
            (p for p, have in read if any(_starts_run(have, i, wanted) for i in range(len(have)))),
            None,
        )
        if pmid is None:
            missing.append(part)
        found_in = found_in or pmid
    if missing:
        return CheckResult(
            ENTITY, False, f"not in the evidence for this claim: {', '.join(missing)}"
        )
    return CheckResult(ENTITY, True, f"named in the evidence: {term}", found_in)


def _starts_run(have: Sequence[str], at: int, wanted: Sequence[str]) -> bool:
    """Whether ``wanted`` stands in ``have`` from ``at``, each word as written or, from four
    letters, as the start of a longer form ("neurologic exam" in "neurologic examination")."""
    found = have[at : at + len(wanted)]
    return len(found) == len(wanted) and all(
        word == got or (len(word) >= _PREFIX_LETTERS and got.startswith(word))
        for word, got in zip(wanted, found, strict=True)
    )


def _names_generic(name: str, text: str) -> bool:
    spelled = content_tokens(GENERIC[name.upper()])
    return _names(name, text, None) or spelled <= content_tokens(text)


def _names(
    name: str,
    text: str,
    forms: Mapping[str, frozenset[str]] | None,
    defined: Mapping[str, frozenset[str]] | None = None,
    *,
    aliases: bool = True,
) -> bool:
    """Whether ``text`` names ``name``: as written (a plural "LVADs" as "LVAD"), spelled
    otherwise, by another name of the same entity (with ``aliases``), spelled out as the long
    form its abstract (``forms``) or else the claim (``defined``) defines for it, or, defined
    by neither, as the words its initials give."""
    if _written(name, text):
        return True
    written, same_entity = _name_keys(text)
    if name_key(name) in (same_entity if aliases else written):
        return True  # "COVID19" or "SARS-CoV-2" for "COVID-19", "T(H)2" for "Th2"
    short = content_tokens(name.removesuffix("s") if name[-2:-1].isupper() else name)
    long = None
    if len(short) == 1:
        token = next(iter(short))
        long = _form(token, forms or {})
        if long is None:
            # Only a long form of two words or more: the detector also takes one word whose
            # letters fit ("proliferative diabetic retinopathy (ROP)" gives ROP "retinopathy").
            long = _form(token, defined or {})
            long = long if long is not None and len(long) >= 2 else None
    if long is not None:
        return bool(long) and long <= content_tokens(text)
    # Defined by neither the abstract nor the claim: its initials may spell it out.
    return _spelled_by_initials(name, text)


def _written(name: str, text: str) -> bool:
    """``name`` as ``text`` writes it: a plural ("LVADs" as "LVAD"), an allele's Greek letter
    ("APOE ε4" as "APOE4") and another spelling ("ropivacaine" for an abstract's "ropivacain",
    "sulfate" for "sulphate") included."""
    needle, haystack = _as_written(name), _as_written(text)
    if needle in haystack or (needle.endswith("s") and needle[:-1] in haystack):
        return True
    return _spelled_alike(needle) in _spelled_alike(haystack)


@lru_cache(maxsize=4096)
def _as_written(text: str) -> str:
    """``text`` as ``_written`` compares it, remembered: every name of a claim is looked for in
    the same windows."""
    return normalise(ALLELE_LETTER.sub(r"\1", text.translate(GREEK_AS_LATIN))).lower()


def _form(token: str, forms: Mapping[str, frozenset[str]]) -> frozenset[str] | None:
    """The long form ``forms`` gives a short-form token, or its plural ("DCs", "circRNAs")."""
    return forms.get(token, forms.get(token + "s"))


# A short form read as the initials of the words it stands for: four to six letters, all
# capitals but perhaps the first ("iPSC"), a plural "s" after them ("NSAIDs"); no digit. Three
# letters spell words in a row by chance: on the SciFact corpus, a short form of the abstract
# was spelled so in another abstract that does not write it 84 times in 5,667 with three
# letters ("haploinsufficient tumour suppressor" for HTS), 1 to 3 times in about 4,000 with
# four to six (two runs).
_INITIALISM = re.compile(r"[a-z]?[A-Z][A-Z-]*[A-Z]s?")
# Between two of those words: "behavioural and psychological symptoms of dementia" (BPSD),
# "multisystem inflammatory syndrome in children" (MIS-C).
_LINKS = frozenset({"of", "and", "in", "for", "with", "to", "the"})
# A word, or anything else but a space or hyphen: a comma or a full stop ends the phrase.
_WORD_OR_BREAK = re.compile(r"[A-Za-z]+|[^A-Za-z\s-]")


def _spelled_by_initials(name: str, text: str) -> bool:
    """Whether ``text`` writes ``name``, a short form, out as the words whose initials it
    gives, in a row ("iPSC" in "induced pluripotent stem cells", "NSCLC" in "non-small cell
    lung cancer", "QALYs" in "quality-adjusted life years"): an answer abbreviates what its
    abstract spells out. Each word a content word in lower case or capitalised, not a short
    form itself ("Chronic OPD" spells no COPD)."""
    letters = name.replace("-", "").removesuffix("s").lower()
    if not _INITIALISM.fullmatch(name) or not 4 <= len(letters) <= 6:
        return False
    found = list(_WORD_OR_BREAK.finditer(text))
    tokens = [m.group() for m in found]
    # A phrase starts a word: "SCLC" is not the end of "non-small cell lung cancer".
    starts = [i for i, m in enumerate(found) if text[m.start() - 1 : m.start()] != "-"]
    for start in starts:
        at, matched = start, 0
        while at < len(tokens) and matched < len(letters):
            token = tokens[at]
            if _spells(token, letters[matched]):
                matched, at = matched + 1, at + 1
            elif matched and token.lower() in _LINKS:
                at += 1
            else:
                break
        if matched == len(letters):
            return True
    return False


def _spells(word: str, letter: str) -> bool:
    return (
        word[0].lower() == letter
        and word.isalpha()
        and (word.islower() or word[1:].islower())
        and word.lower() not in function_words()
    )


# A letter or two in brackets inside a name: "T(H)2" is written "Th2" too.
_BRACKETED_LETTERS = re.compile(r"(?<=\w)\((\w{1,2})\)(?=\w)")


@lru_cache(maxsize=4096)
def _name_keys(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The ``name_key`` of every name ``text`` gives, and those with the names ``SAME_ENTITY``
    holds one entity with them ("SARS-CoV-2" and "the novel coronavirus" name COVID-19)."""
    written = {name_key(n) for _, _, n in names_in(_BRACKETED_LETTERS.sub(r"\1", text))}
    same = written.union(*(group for pattern, group in SPELLED_OUT if pattern.search(text)))
    same.update(*(group for group in SAME_ENTITY if same & group))
    return frozenset(written), frozenset(same)


# Spellings of one name: British and American ("haem"/"hem", "oestr"/"estr", "sulph"/"sulf"),
# and a drug's final "e" that many European journals drop ("ropivacain", "norepinephrin").
_SPELLINGS = (
    (re.compile(r"ae|oe"), "e"),
    (re.compile(r"ph"), "f"),
    (re.compile(r"(?<=\w{5})e\b"), ""),
)


def _spelled_alike(text: str) -> str:
    for pattern, replacement in _SPELLINGS:
        text = pattern.sub(replacement, text)
    return text


def _run(claim: CheckInput) -> list[CheckResult]:
    # Entities in the windows chosen for the claim (on-topic ones only cost more correct
    # sentences than they catch swaps: measured with ``veriproxy eval answers``).
    windows = [(w.pmid, w.text) for w in claim.windows]
    result = check_entities(claim.text, windows, claim.abbreviations, claim.defined)
    if result is not None and not result.passed:
        return [result]
    # A generic name is no entity to look for in the windows: an abstract names the FDA or the
    # AUC anywhere. But a claim that names one its cited evidence never names says what the
    # evidence does not ("AUC was well tolerated" quoting "ORMD-0801 ... well tolerated").
    generic = check_generic_names(claim.text, [*claim.records, *windows])
    if generic is not None:
        return [generic]
    # A generic name ("DNA", "FDA") is no entity to look for, but it may stand in another's
    # place ("DNA is able to process" for "LEM-3 is able to process").
    texts = [text for _, text in (*windows, *claim.sentences)]
    swaps = [
        *swapped_names(claim.text, windows),
        *misdefined_names(claim.text, claim.abbreviations, texts),
    ]
    named = {swap.ours: swap for swap in swaps}  # one result per name of the claim
    return [*([] if result is None else [result]), *(_swapped(s) for s in named.values())]


def _swapped(swap: Swap) -> CheckResult:
    return CheckResult(SWAPPED_ENTITY, False, f"another name in its place: {swap}", swap.pmid)


ENTITIES_CHECK = Check(
    "entities",
    _run,
    {ENTITY: Effect.WITHHOLDS_SUPPORT, SWAPPED_ENTITY: Effect.WITHHOLDS_SUPPORT},
)
