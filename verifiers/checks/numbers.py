"""Numbers and units: every quantity a claim states must be one the evidence states.

NLI models read "5 mg" and "50 mg" as near-identical, so quantities are compared exactly.
Quantities are numbers (digits or number words) with a unit, a counted plural noun ("3 genes",
"120 patients"), a fold change ("two-fold") or a year ("in 2019"); units are read in any Unicode
form (µ and μ, full-width %, non-breaking spaces). For each claim quantity:

- the evidence states it (within the claim's own rounding, or inside an evidence range): passed;
- the evidence states other values in the same unit: ``numbers`` fails (the number was changed);
- the evidence never states that unit: ``unstated_number`` fails (not supported, not refuted).

Answers restate numbers as a reader would, and each such reading is taken at its word:

- a value the claim calls approximate ("about 75%", "nearly 1,100 women", "~12%") matches
  within 5% of itself or half the round step it is written to (75: 5, 1,100: 100);
- a bound ("more than 1,000 women", "at least 12 weeks", "less than 5%"; "more than" and
  "less than" exclude the value itself; "over 6 months" is a span of time, no bound) matches
  a value on its side of the bound and near it (up to half again past it); a value on its
  side but farther is allowed, not restated (``unstated_number``: "at least 2%" for 20% is no
  restatement a reader would trust);
- a fraction of a whole ("three quarters of", "half of", "one in five"; also as a bound, "more
  than one third") is the percentage it names, read within a tenth of itself; unmatched, it is
  not judged (it may be a share the evidence counts as "31 of 58", or of something else than
  the evidence's percentages);
- people counted under another name ("41 children" for "41 patients") are the same count
  (who they were is for the entity check and the model to read);
- the value before "±" (a mean and its spread: "107.4 ± 30.0 minutes") shares the unit after;
- a ratio the evidence reports ("hazard ratio, 0.62", "RR 1.25", each of "odds ratios of 1.83
  (...), 2.19 (...), and 1.49") states the change it names ("a 38% lower risk", "25%
  higher"), for a claim whose direction words point its way; a confidence level ("95% CI") is
  no value of the finding, in the claim or the evidence;
- numbers in words are read whole ("Sixty-seven patients", "One thousand fourteen"), a count
  after its noun or a group's name ("Adolescents (n = 852)", "treatment (n = 2229)") or with
  words that describe its people between ("371 untreated postmenopausal women") and a
  diagnostic proportion ("sensitivity (0.939)", the 93.9% an answer writes) as well.

A number with neither unit nor counted noun ("reduced the score to 1.4") says nothing of what
it measures, so it is only looked for, as a number, anywhere in the evidence: where none is it,
``unstated_number`` fails (p values, references and names' numbers are not looked for).

A number can also be part of a name: the trial, transcript or subunit it labels ("CheckMate-227",
"transcript 6", "subunit 1"). Such a number has no unit to compare, so where the evidence gives
the same label only other numbers, and states the claim's number nowhere, ``labelled_number``
fails: the claim names something the evidence does not (not supported, not refuted).
"""

from __future__ import annotations

import enum
import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Effect
from verifiers.checks.attribution import Value, given_elsewhere
from verifiers.checks.direction import direction
from verifiers.checks.normalise import content_tokens, function_words

NUMBERS = "numbers"
UNSTATED = "unstated_number"
LABELLED = "labelled_number"
MISATTRIBUTED = "misattributed_number"
ON_TOPIC = 0.4  # window prefilter score from which a window's numbers are compared
EVIDENCE_CACHE = 4096  # evidence texts whose readings are kept (windows, sentences, abstracts)

# Unit spellings mapped to one canonical form; longest alternatives first in the pattern.
_UNITS: dict[str, str] = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "percentage points": "pp",
    "mg/kg/day": "mg/kg/d",
    "mg/kg/d": "mg/kg/d",
    "mg/kg": "mg/kg",
    "mg/day": "mg/d",
    "mg/d": "mg/d",
    "mg/dl": "mg/dl",
    "mmol/l": "mmol/l",
    "µmol/l": "umol/l",
    "umol/l": "umol/l",
    "nmol/l": "nmol/l",
    "µg/ml": "ug/ml",
    "µg/kg": "ug/kg",
    "µg/l": "ug/l",
    "µg/dl": "ug/dl",
    "mg/ml": "mg/ml",
    "ng/ml": "ng/ml",
    "mg": "mg",
    "milligrams": "mg",
    "µg": "ug",
    "μg": "ug",
    "ug": "ug",
    "mcg": "ug",
    "micrograms": "ug",
    "ng": "ng",
    "g": "g",
    "grams": "g",
    "kg": "kg",
    "ml": "ml",
    "millilitres": "ml",
    "milliliters": "ml",
    "l": "l",
    "litres": "l",
    "liters": "l",
    "iu": "iu",
    "units": "iu",
    "mmhg": "mmhg",
    "bpm": "bpm",
    "gy": "gy",
    "mmol": "mmol",
    "fold": "fold",
    "hours": "h",
    "hour": "h",
    "hrs": "h",
    "h": "h",
    "minutes": "min",
    "min": "min",
    "days": "d",
    "day": "d",
    "weeks": "wk",
    "week": "wk",
    "wk": "wk",
    "months": "mo",
    "month": "mo",
    "years": "y",
    "year": "y",
    "yr": "y",
    "patients": "patients",
    "participants": "participants",
    "subjects": "participants",
    "children": "children",
    "women": "women",
    "men": "men",
    "adults": "adults",
    "infants": "infants",
    "studies": "studies",
    "trials": "trials",
    "cases": "cases",
    "deaths": "deaths",
}
# Number words, as abstracts spell out a sentence's first number ("Sixty-seven patients") and
# answers small ones: every value below a hundred, hundreds ("two hundred and twelve") and
# thousands ("One thousand fourteen consecutive patients").
_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_WORD_VALUES = {**_ONES, **_TEENS, **_TENS, "a": 1, "hundred": 100, "thousand": 1000}


def _either(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UNDER_HUNDRED = (
    rf"(?:{_either(_TENS)})(?:[-\s](?:{_either(_ONES)}))?|{_either(_TEENS)}|{_either(_ONES)}"
)
# A word ends where the number does ("eighth" is no "eight h"), or runs on into "fold"
# ("threefold").
_UNDER_THOUSAND = (
    rf"(?:(?:{_either(_ONES)}|a)\s+)?hundred(?:\s+(?:and\s+)?(?:{_UNDER_HUNDRED}))?"
    rf"|{_UNDER_HUNDRED}"
)
_WORD_NUMBER = (
    rf"(?:(?:(?:{_UNDER_THOUSAND}|a)\s+)?thousand(?:,?\s+(?:and\s+)?(?:{_UNDER_THOUSAND}))?"
    rf"|{_UNDER_THOUSAND})(?=fold|\b)"
)


_MORE_PEOPLE = (
    "proband", "student", "nurse", "physician", "resident", "mother", "parent", "caregiver",
    "survivor", "smoker", "worker", "employee", "athlete", "veteran", "donor",
)  # fmt: skip
# People counted under any of these names are one count: "41 children" restates "41 patients"
# (who the people were is the entity check's and the model's to read, not the number's).
# The members of a group counted without a noun ("treatment (n = 2229)"): people, as a rule.
# No claim states a count in this unit, so such a count restates people's and changes none.
GROUP_MEMBERS = "count:n"
_PEOPLE = frozenset(
    {GROUP_MEMBERS, "patients", "participants", "children", "women", "men", "adults", "infants"}
    | {"count:individual", "count:person", "count:volunteer", "count:respondent"}
    | {"count:adolescent", "count:neonate", "count:newborn", "count:girl", "count:boy", "cases"}
    | {f"count:{noun}" for noun in _MORE_PEOPLE}
)
# Fractions of a whole, as percentages; "one in five" style shares are read separately.
_FRACTIONS = {
    "half": 50.0,
    "a third": 100 / 3,
    "one third": 100 / 3,
    "one-third": 100 / 3,
    "two thirds": 200 / 3,
    "two-thirds": 200 / 3,
    "a quarter": 25.0,
    "one quarter": 25.0,
    "one-quarter": 25.0,
    "three quarters": 75.0,
    "three-quarters": 75.0,
    "a fifth": 20.0,
    "one fifth": 20.0,
    "one-fifth": 20.0,
}
BOUND_REACH = 1.5  # a bound restates values up to half again past it ("more than 100" for 107)
FRACTION_TOLERANCE = 0.1  # a fraction word names its share within a tenth of it
APPROXIMATE_TOLERANCE = 0.05  # "about N": within 5% of N (or half its round step)


def _unit_key(text: str) -> str:
    """One spelling per unit: NFKC (full-width forms, the micro sign), lower case, μ as u."""
    return unicodedata.normalize("NFKC", text).lower().replace("\u03bc", "u")


_CANONICAL = {_unit_key(k): v for k, v in _UNITS.items()}
# Every spelling the pattern accepts: the table's, with both micro characters and full-width %.
_SPELLINGS = set(_UNITS) | {u.replace("µ", "\u03bc") for u in _UNITS} | {"\uff05"}
# "·" is a decimal point in some journals' style (The Lancet: "3·12 μmol/L").
# Thousands grouped by commas or by spaces ("10 931 patients", SI style; thin spaces too).
_NUMBER = (
    r"\d{1,3}(?:,\d{3})+(?:[.\u00b7]\d+)?|\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d.,\u00b7])"
    r"|\d+(?:[.\u00b7]\d+)?|[.\u00b7]\d+"
)
_VALUE = rf"{_NUMBER}|{_WORD_NUMBER}"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_SPELLINGS, key=len, reverse=True))
# Not after a letter, a decimal point or a hyphen ("IL-6", "COVID-19"), nor after words that
# make the number a name ("type 2 diabetes", "phase 3 trials").
_NOT_A_NAME = (
    r"(?<![\w.\u00b7\-])(?<!type )(?<!phase )(?<!grade )(?<!stage )(?<!class )(?<!group )"
    r"(?<!exon )(?<!intron )(?<!codon )(?<!chromosome )(?<!step )"  # "Exon 11 mutations"
)
_QUANTITY = re.compile(
    rf"{_NOT_A_NAME}(?P<low>{_VALUE})(?:\s*(?:-|\u2013|to)\s*(?P<high>{_NUMBER}))?"
    rf"\s*-?\s*(?P<unit>{_UNIT_ALT})(?![\w/])",
    re.IGNORECASE,
)
# A plural noun: a word ending in "s", but not in "us", "ss" or "is" ("0.948 versus 0.906",
# "stress", "analysis").
_PLURAL = r"[a-z]{3,}(?<![ius])s"
# A counted plural noun after a number: "3 genes", "two cohorts".
_COUNT = re.compile(
    rf"{_NOT_A_NAME}(?P<low>{_VALUE})\s+(?P<noun>{_PLURAL})\b",
    re.IGNORECASE,
)
# Things counted with words that describe them between ("371 untreated postmenopausal women",
# "5 General practices"): up to three words, none of them a function word (``_described``: "a
# score of 5 in most patients" counts no patients). People with every describing word ("371
# obese diabetes patients"); in the evidence, anything else up to the first plural ("3 new
# genes"). An answer names what it counts in words of its own ("35 spinal deformity
# corrections" for "35 ... procedures"): its number is looked for as a bare number instead.
_PEOPLE_NOUNS = (
    "patients|participants|subjects|children|women|men|adults|infants|individuals|persons"
    "|volunteers|respondents|adolescents|neonates|newborns|girls|boys"
)
_PLURAL_NOUN = rf"{_PEOPLE_NOUNS}|{_PLURAL}"


def _described_count(nouns: str, words: str) -> re.Pattern[str]:
    return re.compile(
        rf"{_NOT_A_NAME}(?P<low>{_VALUE})\s+(?P<words>(?:[a-z][a-z-]*\s+){words})"
        rf"(?P<noun>{nouns})\b",
        re.IGNORECASE,
    )


_DESCRIBED_PEOPLE = _described_count(_PEOPLE_NOUNS, "{1,3}")
_DESCRIBED_THINGS = _described_count(_PLURAL_NOUN, "{1,3}?")
# Bare numbers listed or compared before a quantity share its unit: "40, 80, and 160 µmol/l",
# "(4.0 vs. 6.0 days)".
# A mean before its spread shares the spread's unit too: "107.4 \u00b1 30.0 minutes".
_LISTED = re.compile(
    rf"(?:(?<![\w.])(?:{_NUMBER})\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|vs\.?|versus)\s+"
    rf"|(?:\u00b1|\+/-)\s*))+$"
)
# A counted noun shares its unit with a mean before its spread only ("338 \u00b1 150 points"): a
# list before a count is as often a p value or another measure ("p = 0.01, 5 patients").
_SPREAD = re.compile(rf"(?<![\w.])(?:{_NUMBER})\s*(?:\u00b1|\+/-)\s*$")
_LISTED_NUMBER = re.compile(_NUMBER)
_FRACTION = re.compile(
    r"(?<![\w-])(?P<fraction>"
    + "|".join(re.escape(f) for f in sorted(_FRACTIONS, key=len, reverse=True))
    + r")\s+(?:of|the)\b",
    re.IGNORECASE,
)
_ONE_IN = re.compile(
    rf"(?<![\w-])one in (?P<denominator>{_UNDER_HUNDRED}|\d{{1,3}})\b", re.IGNORECASE
)
# Words right before a value that make it a bound or approximate; searched leftmost first, so
# "no more than" is read whole, not as "more than".
_QUALIFIER = re.compile(
    r"(?:(?<!\w)(?P<at_most>at most|up to|no more than|not more than|no greater than|"
    r"not exceeding)|(?P<at_most_sign><=|\u2264)"
    r"|(?<!\w)(?P<below>less than|fewer than|under|below)|(?P<below_sign><)"
    r"|(?<!\w)(?P<at_least>at least|no less than|not less than|no fewer than)"
    r"|(?P<at_least_sign>>=|\u2265)"
    r"|(?<!\w)(?P<above>more than|greater than|over|above|exceeding|in excess of|upwards of)"
    r"|(?P<above_sign>>)"
    r"|(?<!\w)(?P<about>about|approximately|approx\.|around|roughly|nearly|almost|close to|"
    r"some|circa|ca\.)|(?P<about_sign>~|\u2248))\s*$",
    re.IGNORECASE,
)
# A count given after its noun: "Adolescents (n = 852)", "patients [N=45;"; or after a group's
# name, of its members: "treatment (n = 2229)", "(untreated, n = 109)".
_NAMED_COUNT = re.compile(
    rf"(?:(?<![\w-])(?P<noun>{_PLURAL})\s*)?[(\[][^()\[\]]{{0,40}}?(?<![\w.])n\s*=\s*"
    rf"(?P<low>{_NUMBER})\s*[)\],;]",
    re.IGNORECASE,
)
# A part of a counted whole, counted before its verb: "Of 83 patients examined, 26 were found to
# have a tumour", "Of the women, 53 (31.2%) had complete recanalization": 26 patients, 53 women.
_PART_COUNT = re.compile(
    rf"(?<!\w)of\s+(?:the\s+|these\s+|all\s+)?(?:(?:{_VALUE})\s+)?(?:[a-z-]+\s+){{0,3}}?"
    rf"(?P<noun>{_PLURAL_NOUN})\b[^,;.()]{{0,80}},\s*(?P<low>{_VALUE})"
    r"(?=\s*\(|\s+(?:were|was|had|have|did|are|[a-z]+ed)\b)",
    re.IGNORECASE,
)
# A diagnostic measure stated as a proportion: "sensitivity (0.939)", "specificity of .83", the
# percentage an answer restates ("a sensitivity of about 94%").
_PROPORTION = re.compile(
    r"\b(?:sensitivity|specificity|accuracy|(?:positive|negative) predictive value|PPV|NPV)"
    r"\b(?:\s*(?:was|of|=|:|\())?\s*(?P<low>0?[.\u00b7]\d+)(?![\d%\u00b7]|\.\d)"
    rf"(?!\s*(?:{_UNIT_ALT}|[cmn\u00b5\u03bc]?m)(?!\w))",  # "an accuracy of 0.5 mm"
    re.IGNORECASE,
)
# A number with neither unit nor counted noun ("reduced the score to 1.4"): what it measures is
# unread, so it can only be looked for, as a number, anywhere in the evidence. Not a name's
# ("BQ123", "type 2", "PtdIns(3,4)P 2", "COVID 19"), a reference's ("[3]", "Table 2") or a p
# value's ("P = .26", "p < 0.05": a threshold as often as a result).
_BARE = re.compile(
    rf"{_NOT_A_NAME}(?<!\[)(?<!\d,)(?<!table )(?<!figure )(?<!fig\. )(?<!\W[a-z] )(?<!\d )"
    rf"(?P<low>{_NUMBER})(?![\w%\u00b7\]]|[.,]\d|[ \u00a0\u2009\u202f]\d{{3}}(?!\d))",
    re.IGNORECASE,
)
_P_VALUE = re.compile(r"\bp\s*(?:[<>=\u2264\u2265]|values?\s+of)\s*$", re.IGNORECASE)
_ANY_NUMBER = re.compile(rf"(?<![\d.\u00b7])(?:{_NUMBER})|(?<!\w)(?:{_WORD_NUMBER})", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|since|from|until|by|during|before|after)\s+(?P<year>(?:19|20)\d\d)\b")
# A percentage that is an interval's level: "95% CI", "95% confidence interval".
_INTERVAL = re.compile(
    r"\s*(?:CI\b|C\.I\.|(?:confidence|credible|credibility|prediction|uncertainty) interval)",
    re.IGNORECASE,
)
# A ratio and its value: "hazard ratio, 0.62", "HR = 0.62", "adjusted OR 1.8", "(RR 0.75;".
_RATIO = re.compile(
    r"(?:(?i:hazard|risk|odds|rate|incidence rate|relative) ratio(?P<plural>s)?|(?i:relative risk)"
    r"|\b(?:a|adjusted )?(?:HR|RR|OR|IRR|sHR)\b)"
    r"(?:\s*\([^()]{1,40}\))?[\s,:=]*(?:(?:was|of|were|is|are)\s+)?(?P<ratio>\d*\.\d+|\d)\b"
)
# The further ratios a plural one lists, each maybe with its interval: "odds ratios of 1.83
# (95% CI 1.05 to 3.19), 2.19 (95% CI 1.63 to 2.94), and 1.49 (...), respectively".
_FURTHER_RATIO = re.compile(
    r"(?:\s*\([^()]{1,60}\))?\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?P<ratio>\d*\.\d+|\d)\b"
)


class Reading(enum.Enum):
    """How a stated value is meant: exactly (to its rounding), approximately, or as a bound."""

    EXACT = "exact"
    APPROXIMATE = "approximate"
    AT_LEAST = "at least"
    ABOVE = "above"  # strictly: "more than 1,000" is not 1,000
    AT_MOST = "at most"
    BELOW = "below"


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number (or range) with its canonical unit, how it is meant, and its span in the
    text."""

    low: float
    high: float
    unit: str
    decimals: int
    text: str
    start: int
    end: int
    reading: Reading = Reading.EXACT
    # A fraction of a whole in words ("three quarters of"), as the percentage it names: a share
    # of what it may not say, so unmatched it shows nothing changed.
    fraction: bool = False
    # A percentage change read from a ratio ("hazard ratio, 0.62": -1, a 38% reduction; 1.25:
    # +1): it restates a claim's change that points its way, and shows no other value changed.
    change: int = 0

    def comparable(self, other: Quantity) -> bool:
        """Values of one measure: the same unit, or people counted under two names."""
        return self.unit == other.unit or (self.unit in _PEOPLE and other.unit in _PEOPLE)

    def matches(self, other: Quantity) -> bool:
        """``self`` (a claim value) is ``other`` (an evidence value) as each means it: equal up
        to self's rounding or either's approximation, inside other's range, or on the side of
        self's bound and near it (a bound restates a value: "more than 1,000" for 1,099, not
        for 10,990)."""
        if not self.comparable(other):
            return False
        if self.bounds_alike(other):  # a threshold: restated at the claim's rounding, or moved
            return abs(self.low - other.low) <= self._rounding
        if self.reading in _LOWER_BOUNDS:
            return self.allows(other) and other.high <= BOUND_REACH * self.low
        if self.reading in _UPPER_BOUNDS:
            return self.allows(other) and other.low >= self.high / BOUND_REACH
        tolerance = self._tolerance()
        # An evidence value the claim restates approximately widens the match, but a fraction
        # word does not lend its tenth to a precise value: "half of them" is no "46%".
        if other.reading is Reading.APPROXIMATE and (self.fraction or not other.fraction):
            tolerance = max(tolerance, other._tolerance())
        if other.low != other.high and self.low == self.high:
            return other.low - tolerance <= self.low <= other.high + tolerance
        return abs(self.low - other.low) <= tolerance and abs(self.high - other.high) <= tolerance

    def allows(self, other: Quantity) -> bool:
        """``self`` is a bound that ``other`` lies on the side of, however far: "less than 5%"
        allows 2%, which it does not restate."""
        if not self.comparable(other):
            return False
        if self.reading is Reading.AT_LEAST:
            return other.high >= self.low
        if self.reading is Reading.ABOVE:
            return other.high > self.low
        if self.reading is Reading.AT_MOST:
            return other.low <= self.high
        return self.reading is Reading.BELOW and other.low < self.high

    def bounds_alike(self, other: Quantity) -> bool:
        """``self`` and ``other`` are bounds on the same side of one unit ("less than 30 hours",
        "less than three hours")."""
        return self.unit == other.unit and (
            {self.reading, other.reading} <= _LOWER_BOUNDS
            or {self.reading, other.reading} <= _UPPER_BOUNDS
        )

    @property
    def firm(self) -> bool:
        """Whether, as evidence, this value shows that a claim stating another one in its unit
        changed it: a bound, a fraction word or a ratio's change does not ("more than 1,000
        patients" is not "1,200 patients" changed)."""
        exact = self.reading in (Reading.EXACT, Reading.APPROXIMATE)
        return exact and not self.fraction and not self.change

    @property
    def _rounding(self) -> float:
        """Half the last place the value is written to: "30%" holds 29.5 to 30.5."""
        return 0.5 * 10.0**-self.decimals

    def _tolerance(self) -> float:
        rounding = self._rounding
        if self.fraction:
            return FRACTION_TOLERANCE * self.low
        if self.reading is Reading.APPROXIMATE and self.decimals == 0:
            return max(rounding, _round_step(self.low) / 2, APPROXIMATE_TOLERANCE * self.low)
        return rounding


_DURATIONS = frozenset({"h", "min", "d", "wk", "mo", "y"})
_LOWER_BOUNDS = frozenset({Reading.AT_LEAST, Reading.ABOVE})
_UPPER_BOUNDS = frozenset({Reading.AT_MOST, Reading.BELOW})


def _round_step(value: float) -> float:
    """The coarsest round step (1, 5, 10, 50, 100, ...) that ``value`` is a multiple of and
    that is at most a tenth of it: "about 75" is written to 5, "nearly 1,100" to 100."""
    step = 1.0
    for candidate in itertools.takewhile(lambda c: c <= value / 10, _STEPS):
        if value % candidate == 0:
            step = candidate
    return step


_STEPS = tuple(base * 10**power for power in range(7) for base in (1, 5))[1:]


def _quantity(match: re.Match[str], unit: str) -> Quantity:
    low_text = match.group("low")
    high_text = match.groupdict().get("high") or low_text
    single = match.groupdict().get("high") is None
    return Quantity(
        low=_value(low_text),
        high=_value(high_text),
        unit=unit,
        decimals=_decimals(low_text),
        text=match.group(0),
        start=match.start(),
        end=match.end(),
        reading=_reading(match.string, match.start(), unit) if single else Reading.EXACT,
    )


def _decimals(number: str) -> int:
    return len(number.replace("\u00b7", ".").partition(".")[2])


def _reading(text: str, start: int, unit: str = "") -> Reading:
    """How the words right before ``start`` make the value there meant (in ``unit``)."""
    qualifier = _QUALIFIER.search(text, max(start - 20, 0), start)
    if qualifier is None:
        return Reading.EXACT
    if unit in _DURATIONS and qualifier.group(0).strip().lower() == "over":
        return Reading.EXACT  # "predict transition over 6 months": during them, not past
    for reading in (Reading.AT_MOST, Reading.BELOW, Reading.AT_LEAST, Reading.ABOVE):
        group = reading.name.lower()
        if qualifier.group(group) or qualifier.group(f"{group}_sign"):
            return reading
    return Reading.APPROXIMATE


def _fractions(text: str) -> Iterator[Quantity]:
    """Fractions of a whole as percentages: "three quarters of", "half the", "one in five";
    approximate, or a bound where the words before say so ("more than one third")."""
    shares = [(m, _FRACTIONS[m.group("fraction").lower()]) for m in _FRACTION.finditer(text)]
    for m in _ONE_IN.finditer(text):
        denominator = _value(m.group("denominator"))
        if denominator:
            shares.append((m, 100.0 / denominator))
    for m, share in shares:
        words = m.group("fraction") if "fraction" in m.re.groupindex else m.group(0)
        reading = _reading(text, m.start())
        if reading is Reading.EXACT:
            reading = Reading.APPROXIMATE
        at = m.start()
        yield Quantity(share, share, "%", 0, words, at, at + len(words), reading, fraction=True)


def _singular(noun: str) -> str:
    noun = noun.lower()
    return noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]


def _noun_unit(noun: str) -> str:
    """The unit a counted plural noun names: the table's ("subjects": participants), else a
    count of its own ("genes": count:gene)."""
    return _CANONICAL.get(_unit_key(noun)) or f"count:{_singular(noun)}"


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``start``-``end`` overlaps one of ``spans`` (values already read)."""
    return any(a < end and start < b for a, b in spans)


def _sharing(pattern: re.Pattern[str], text: str, start: int, unit: str) -> Iterator[Quantity]:
    """The bare numbers that ``pattern`` finds right before ``start`` (where a quantity in
    ``unit`` begins), each a quantity in that unit; years left out ("in 2019, 5 mg")."""
    shared = pattern.search(text, max(start - 120, 0), start)
    if shared is None:
        return
    for n in _LISTED_NUMBER.finditer(shared.group(0)):
        at, written = shared.start() + n.start(), n.group(0)
        if not re.fullmatch(r"(?:19|20)\d\d", written):
            value = _value(written)
            yield Quantity(value, value, unit, _decimals(written), written, at, at + len(written))


def extract_quantities(text: str) -> list[Quantity]:
    """All quantity mentions in ``text``: number + unit, counted nouns and years."""
    found = list(_fractions(text))
    shares = [(q.start, q.end) for q in found]
    for m in _QUANTITY.finditer(text):
        if _overlaps(m.start(), m.end(), shares):
            continue  # "one in five patients": a share, not five patients
        unit = _CANONICAL[_unit_key(m.group("unit"))]
        if unit == "%" and _INTERVAL.match(text, m.end()):
            continue  # "95% CI": the interval's level, no value of the finding
        found.append(_quantity(m, unit))
        found.extend(_sharing(_LISTED, text, m.start(), unit))
    taken = [(q.start, q.end) for q in found]
    for m in _COUNT.finditer(text):
        if not _overlaps(m.start(), m.end(), taken):
            unit = f"count:{_singular(m.group('noun'))}"
            found.append(_quantity(m, unit))
            found.extend(_sharing(_SPREAD, text, m.start(), unit))
    found.extend(_described_counts(text, [(q.start, q.end) for q in found]))
    found.extend(_named_counts(text, [(q.start, q.end) for q in found]))
    found.extend(_part_counts(text, [(q.start, q.end) for q in found]))
    found.extend(_proportions(text, [(q.start, q.end) for q in found]))
    for m in _YEAR.finditer(text):
        year = m.group("year")
        found.append(
            Quantity(float(year), float(year), "year", 0, year, m.start("year"), m.end("year"))
        )
    return sorted(found, key=lambda q: q.start)


def _described_counts(
    text: str, taken: Sequence[tuple[int, int]], pattern: re.Pattern[str] = _DESCRIBED_PEOPLE
) -> Iterator[Quantity]:
    """Counts with words that describe them between the number and the noun ("371 untreated
    postmenopausal women"), in the noun's unit; no word between may be a function word
    (spaCy's English stop words), a unit or a number word, and the number is no year ("In 2019
    hospital admissions rose")."""
    for m in pattern.finditer(text):
        words = m.group("words").lower().split()
        if _overlaps(m.start(), m.end(), taken) or _YEAR_NUMBER.fullmatch(m.group("low")):
            continue
        if any(
            w in function_words() or _unit_key(w) in _CANONICAL or w in _WORD_VALUES for w in words
        ):
            continue
        yield _quantity(m, _noun_unit(m.group("noun")))


@functools.lru_cache(maxsize=EVIDENCE_CACHE)
def evidence_quantities(text: str) -> tuple[Quantity, ...]:
    """The quantities of an evidence text: ``extract_quantities``', and things counted with
    describing words between ("5 General practices"), which an answer restates in its own.
    Cached: every claim of an answer reads the same windows."""
    found = extract_quantities(text)
    things = _described_counts(text, [(q.start, q.end) for q in found], _DESCRIBED_THINGS)
    return tuple(sorted([*found, *things], key=lambda q: q.start))


def _named_counts(text: str, taken: Sequence[tuple[int, int]]) -> Iterator[Quantity]:
    """Counts written after their noun ("Adolescents (n = 852)"), in the noun's unit."""
    for m in _NAMED_COUNT.finditer(text):
        if not _overlaps(m.start(), m.end(), taken):
            noun = m.group("noun")
            unit = GROUP_MEMBERS if noun is None else _noun_unit(noun)
            yield replace(_quantity(m, unit), reading=Reading.EXACT)


def _part_counts(text: str, taken: Sequence[tuple[int, int]]) -> Iterator[Quantity]:
    """A part of a counted whole counted before its verb ("Of 83 patients examined, 26 were
    found"), in the whole's unit."""
    for m in _PART_COUNT.finditer(text):
        if not _overlaps(m.start("low"), m.end("low"), taken):
            yield replace(_quantity(m, _noun_unit(m.group("noun"))), reading=Reading.EXACT)


def _proportions(text: str, taken: Sequence[tuple[int, int]]) -> Iterator[Quantity]:
    """A diagnostic measure's proportion ("sensitivity (0.939)") as the percentage it is."""
    for m in _PROPORTION.finditer(text):
        if _overlaps(m.start("low"), m.end(), taken):
            continue
        written = m.group("low")
        share = round(_value(written) * 100, 6)
        at, to = m.start("low"), m.end("low")
        decimals = max(_decimals(written) - 2, 0)
        yield Quantity(share, share, "%", decimals, m.group(0), at, to)


def ratio_changes(text: str) -> list[Quantity]:
    """The percentage changes the ratios of ``text`` state: "hazard ratio, 0.62" is a 38%
    reduction (``change`` -1), "RR 1.25" a 25% increase (+1)."""
    found = []
    for m in _RATIO.finditer(text):
        stated = [m]
        while m.group("plural") and (further := _FURTHER_RATIO.match(text, stated[-1].end())):
            stated.append(further)
        for value in stated:
            ratio = float(value.group("ratio"))
            if not 0 < ratio < 10 or ratio == 1:
                continue
            share = round(abs(1 - ratio) * 100, 6)
            decimals = max(_decimals(value.group("ratio")) - 2, 0)
            at, to = value.start("ratio"), value.end("ratio")
            sign = -1 if ratio < 1 else 1
            written = text[m.start() : to]
            found.append(Quantity(share, share, "%", decimals, written, at, to, change=sign))
    return found


def check_numbers(
    claim: str, sources: Sequence[tuple[str, str]], abbreviations: Abbreviations | None = None
) -> CheckResult | None:
    """Compare the claim's quantities with those of ``sources`` (pairs of PMID and text).
    A changed value (``numbers`` failed) outranks an unstated one (``unstated_number``); None
    when the claim states no quantity. ``abbreviations``: per PMID, the short forms its
    abstract defines, for reading whose a value is ("OS" is "overall survival")."""
    abbreviations = abbreviations or {}
    # A change read from a ratio restates only a claim whose direction words point its way.
    pointing = direction(claim)
    evidence = [
        (pmid, q)
        for pmid, text in sources
        for q in (*evidence_quantities(text), *ratio_changes(text))
        if not q.change or q.change == pointing
    ]
    verdicts: list[CheckResult] = []
    claimed = extract_quantities(claim)
    for quantity in claimed:
        if _refers_back(claim, quantity):
            continue
        # A bound is compared with the evidence's bounds on its side where it sets any: "less
        # than 202 cells" does not restate "less than 200 cells" by way of "200 to 350 cells".
        alike = [(pmid, q) for pmid, q in evidence if quantity.bounds_alike(q)]
        match = next((pmid for pmid, q in alike or evidence if quantity.matches(q)), None)
        if match is None and quantity.low != quantity.high:
            match = _ends_stated(quantity, evidence)
        # Only firm values of the very unit show that the claim's was changed, and a fraction
        # word may be a share of something else than the evidence's percentages.
        same_unit = [(pmid, q) for pmid, q in evidence if q.unit == quantity.unit and q.firm]
        if match is not None and (
            elsewhere := _given_elsewhere(claim, quantity, claimed, sources, abbreviations)
        ):
            verdicts.append(elsewhere)
        elif match is not None:
            verdicts.append(CheckResult(NUMBERS, True, f"{quantity.text} found", match))
        elif quantity.fraction:
            continue  # unmatched, "half the patients" may be counted as "31 of 58"
        elif moved := [(pmid, q) for pmid, q in evidence if quantity.bounds_alike(q)]:
            # A threshold the evidence sets on the same side, moved: "less than 30 hours"
            # for "less than three hours".
            stated = ", ".join(sorted({q.text for _, q in moved})[:5])
            detail = f"{quantity.text} not in the evidence, which bounds it at {stated}"
            verdicts.append(CheckResult(NUMBERS, False, detail, moved[0][0]))
        elif any(quantity.allows(q) for _, q in evidence):
            allowed = ", ".join(sorted({q.text for _, q in evidence if quantity.allows(q)})[:5])
            detail = f"{quantity.text}: the evidence states {allowed}, allowed but not restated"
            verdicts.append(CheckResult(UNSTATED, False, detail, None))
        elif same_unit:
            stated = ", ".join(sorted({q.text for _, q in same_unit})[:5])
            detail = f"{quantity.text} not in the evidence, which states {stated}"
            verdicts.append(CheckResult(NUMBERS, False, detail, same_unit[0][0]))
        else:
            detail = f"{quantity.text}: the evidence states no such quantity"
            verdicts.append(CheckResult(UNSTATED, False, detail, None))
    verdicts.extend(_unstated_bare_numbers(claim, sources, abbreviations))
    if not verdicts:
        return None
    for name in (NUMBERS, UNSTATED, MISATTRIBUTED):
        failed = [v for v in verdicts if v.name == name and not v.passed]
        if failed:
            return failed[0]
    return verdicts[0]


def _ends_stated(quantity: Quantity, evidence: Sequence[tuple[str, Quantity]]) -> str | None:
    """The PMID whose evidence states both ends of the claim's range as values of their own:
    "volumes of 570.5 to 664.0 mL" for "570.5mL, 664.0mL, 663.0mL"."""
    low, high = replace(quantity, high=quantity.low), replace(quantity, low=quantity.high)
    for pmid in dict.fromkeys(pmid for pmid, _ in evidence):
        stated = [q for p, q in evidence if p == pmid and q.firm]
        if any(low.matches(q) for q in stated) and any(high.matches(q) for q in stated):
            return pmid
    return None


# A noun a number after it numbers ("for observer 1 and 94 ± 6 %": the 1 is no percentage, though
# listed before one): no value of a group.
_NUMBERED = re.compile(
    r"\b(?:observer|reader|rater|group|arm|cohort|day|week|month|visit|phase|stage|grade|type|"
    r"case|study|trial|round|session|cycle|step|exon|period|experiment)s?\s+$",
    re.IGNORECASE,
)


# Per PMID, the short forms its abstract defines: short-form token -> its long form's tokens.
Abbreviations = Mapping[str, Mapping[str, frozenset[str]]]
# An evidence value as the attribution reading takes it: its span, whether it is the claim
# value read, and whether another value of the claim restates it.
_Placed = tuple[Value, bool, bool]


def _given_elsewhere(
    claim: str,
    quantity: Quantity,
    claimed: Sequence[Quantity],
    sources: Sequence[tuple[str, str]],
    abbreviations: Abbreviations,
) -> CheckResult | None:
    """A failed ``misattributed_number`` where every evidence sentence that states the claim's
    quantity gives it to other words than the claim's (``verifiers.checks.attribution``).
    ``claimed``: all the claim's quantities."""
    if not quantity.firm:
        return None
    others = [q for q in claimed if q != quantity]
    numbers = _other_numbers(claim, quantity.start, quantity.end)

    def restated(q: Quantity) -> bool:
        return any(o.matches(q) for o in others) or any(_restates(n, q.low) for n in numbers)

    def placed(text: str) -> list[_Placed]:
        values = [
            q
            for q in evidence_quantities(text)
            if q.firm and quantity.comparable(q) and not _NUMBERED.search(text, 0, q.start)
        ]
        return [(Value(q.start, q.end, q.text), quantity.matches(q), restated(q)) for q in values]

    return _misattributed(claim, quantity.text, sources, placed, abbreviations)


def _misattributed(
    claim: str,
    written: str,
    sources: Sequence[tuple[str, str]],
    placed: Callable[[str], list[_Placed]],
    abbreviations: Abbreviations,
) -> CheckResult | None:
    """A failed ``misattributed_number`` for the claim value ``written`` where each sentence of
    ``sources`` stating it (``placed`` reads a text's values of its kind) gives it to other
    words; None where one gives it to the claim's, or none states it."""
    found = None
    for pmid, text in sources:
        values = placed(text)
        spans = [span for span, _, _ in values]
        restated = [span for span, _, other in values if other]
        for span, hit, _ in values:
            if not hit:
                continue
            forms = abbreviations.get(pmid, {})
            misread = given_elsewhere(claim, text, span, spans, restated, forms, written)
            if misread is None:
                return None
            found = found or (pmid, misread)
    if found is None:  # stated only as a ratio's change, or in no firm value
        return None
    pmid, misread = found
    words = ", ".join(f"'{w}'" for w in misread.words)
    detail = (
        f"{written}: the evidence states it, but for {words} it states {', '.join(misread.values)}"
    )
    return CheckResult(MISATTRIBUTED, False, detail, pmid)


# Words before a small count that refer back to things already named ("between the two
# groups"), rather than state how many there were.
_REFERRING = re.compile(r"\b(?:the|these|those|both)\s+$", re.IGNORECASE)
_COUNTED = frozenset(
    {"patients", "participants", "children", "women", "men", "adults", "infants", "studies"}
    | {"trials", "cases", "deaths"}
)
REFERRED_AT_MOST = 3


def _refers_back(claim: str, quantity: Quantity) -> bool:
    """Whether ``quantity`` is a small count that refers back ("the two groups", "these three
    patients"): the evidence names the groups, as a rule without counting them."""
    counted = quantity.unit.startswith("count:") or quantity.unit in _COUNTED
    return (
        counted
        and quantity.low <= REFERRED_AT_MOST
        and _REFERRING.search(claim, max(quantity.start - 12, 0), quantity.start) is not None
    )


@functools.lru_cache(maxsize=EVIDENCE_CACHE)
def stated_values(text: str) -> tuple[float, ...]:
    """Every number ``text`` writes, in digits or words ("Twenty-six" is 26), whatever it
    measures. Cached, as ``evidence_quantities``."""
    return tuple(_value(n.group(0)) for n in _ANY_NUMBER.finditer(text))


def _unstated_bare_numbers(
    claim: str, sources: Sequence[tuple[str, str]], abbreviations: Abbreviations
) -> Iterator[CheckResult]:
    """An ``unstated_number`` result for each number of the claim without unit or noun, stated
    exactly, that no number of ``sources`` is (to the claim's rounding). A bare number the
    evidence states passes silently: it shows nothing about what the number measures."""
    read = [(q.start, q.end) for q in extract_quantities(claim)] + _name_numbers(claim)
    bare = [
        m
        for m in _BARE.finditer(claim)
        if not _overlaps(m.start(), m.end(), read)
        and not _P_VALUE.search(claim, 0, m.start())
        # "about 94", "more than 5": no exact value; a year is read elsewhere
        and _reading(claim, m.start()) is Reading.EXACT
        and not _YEAR_NUMBER.fullmatch(m.group(0))
    ]
    if not bare:
        return
    stated = [value for _, text in sources for value in stated_values(text)]
    for m in bare:
        value, rounding = _read_bare(m.group(0))
        if not any(abs(value - number) <= rounding for number in stated):
            detail = f"{m.group(0)}: the evidence states no such number"
            yield CheckResult(UNSTATED, False, detail, None)
            continue
        if _in_a_name(claim, m.start(), m.end()):
            continue
        others = _other_numbers(claim, m.start(), m.end())
        placed = functools.partial(_placed_bare, (value, rounding), others)
        if misread := _misattributed(claim, m.group(0), sources, placed, abbreviations):
            yield misread


def _other_numbers(claim: str, start: int, end: int) -> list[tuple[float, float]]:
    """Every number ``claim`` writes outside ``claim[start:end]``, with its rounding: a claim
    stating both arms' values speaks of both ("two sets of four regions with an overlap of
    three regions")."""
    return [
        _read_bare(o.group(0))
        for o in _ANY_NUMBER.finditer(claim)
        if o.end() <= start or o.start() >= end
    ]


def _restates(read: tuple[float, float], number: float) -> bool:
    """Whether ``read`` (a value and its rounding) is ``number``."""
    return abs(number - read[0]) <= read[1]


def _read_bare(number: str) -> tuple[float, float]:
    """A bare number's value and half its last place."""
    return _value(number), 0.5 * 10.0 ** -_decimals(number)


def _placed_bare(
    claimed: tuple[float, float], others: Sequence[tuple[float, float]], text: str
) -> list[_Placed]:
    """``text``'s bare numbers for the attribution reading of the claim's bare number
    ``claimed`` (value and rounding), ``others`` the claim's other bare numbers."""

    return [
        (span, _restates(claimed, number), any(_restates(o, number) for o in others))
        for span, number in bare_values(text)
    ]


def _name_numbers(text: str) -> list[tuple[int, int]]:
    """The spans of whole numbers after a name in capitals, which label it ("COVID 19", "PC
    6"): the name is the entity check's. After a word in lower case a number is read
    ("subunit 2", "protein 4")."""
    return [
        (m.start("number"), m.end("number"))
        for m in _LABELLED.finditer(text)
        if m.group("label").isupper()
    ]


@functools.lru_cache(maxsize=EVIDENCE_CACHE)
def bare_values(text: str) -> tuple[tuple[Value, float], ...]:
    """The statistics of ``text`` given as bare numbers after their name ("OR = 2.1", "HR
    1.6", "hazard ratio, 0.62"), with their values: a bare number without one ("screened 20
    samples", "Step 2", "£482") may be anything, and is given to no words. Cached, as
    ``evidence_quantities``."""
    taken = [(q.start, q.end) for q in evidence_quantities(text)] + _name_numbers(text)
    return tuple(
        (Value(m.start(), m.end(), m.group(0)), _value(m.group(0)))
        for m in _BARE.finditer(text)
        if not _overlaps(m.start(), m.end(), taken)
        and _STATISTIC.search(text, max(m.start() - 30, 0), m.start())
        and not _in_a_name(text, m.start(), m.end())
    )


# The name of a statistic just before its value: "OR = 2.1", "(HR, 1.8;", "hazard ratio 0.62".
_STATISTIC = re.compile(
    r"(?:\b(?:a?ORs?|a?HRs?|a?RRs?|IRR|SMD|WMD|AUC|ratios?|coefficient)|"
    r"\b(?:odds|hazard|risk|rate) ratio)\s*(?:[(,:=]|of|was|were|is)?\s*$"
)


_JOINED_TO_NAME = re.compile(r",\d|-[^\W\d]")


def _in_a_name(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` is part of a name or term rather than a
    value: "PtdIns(3,4)P2", "3-phosphatase", "44-item"."""
    joined = _JOINED_TO_NAME.match(text, end) is not None
    return joined or (start >= 2 and text[start - 1] == "(" and text[start - 2].isalnum())


_LEADING_VALUE = re.compile(rf"(?:{_VALUE})(?:\s*(?:-|\u2013|to)\s*(?:{_NUMBER}))?", re.IGNORECASE)


def in_evidence_words(claim: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """``claim`` with each value it restates in words of its own ("about a quarter of",
    "one in seven", "Sixty-seven patients") written as the value of ``sources`` (PMID, text)
    that it matches ("23% of", "14% of", "67 patients"), its unit and the words around it
    kept; None when the numbers check does not pass or no value is written otherwise. The
    small NLI model reads "a quarter" against "Twenty-three percent" as a changed number,
    which the numbers check has already read and found restated."""
    result = check_numbers(claim, sources)
    if result is None or not result.passed:
        return None
    evidence = [q for _, text in sources for q in evidence_quantities(text)]
    pieces, last = [], 0
    for quantity in extract_quantities(claim):
        match = next((q for q in evidence if quantity.matches(q)), None)
        if match is None or quantity.start < last:
            continue  # a ratio's change, restated as the ratio's words: no value to write in
        written = _written(match)
        if quantity.fraction:
            start, end = quantity.start, quantity.end
            written += " of" if quantity.text.lower().startswith("one in") else ""
        else:
            value = _LEADING_VALUE.match(quantity.text)
            if value is None:
                continue  # a count after its noun, "Adolescents (n = 852)"
            start, end = quantity.start, quantity.start + value.end()
            written = written.removesuffix("%") if match.unit == "%" else written
        if claim[start:end].lower() != written.lower():
            pieces += [claim[last:start], written]
            last = end
    return "".join([*pieces, claim[last:]]) if pieces else None


def in_digits(text: str) -> str:
    """``text`` with each value it writes in words as digits ("Thirty-nine cases" as "39
    cases"), its unit and the words around it kept; fraction words stay ("half of")."""
    pieces, last = [], 0
    for quantity in extract_quantities(text):
        value = _LEADING_VALUE.match(quantity.text)
        if quantity.fraction or value is None or not value.group(0)[0].isalpha():
            continue
        if quantity.start >= last:
            pieces += [text[last : quantity.start], _written(quantity).removesuffix("%")]
            last = quantity.start + value.end()
    return "".join([*pieces, text[last:]])


def written_alike(claim: str, sources: Sequence[tuple[str, str]]) -> tuple[str, list[str]] | None:
    """``claim`` and the texts of ``sources`` (PMID, text) with their values written alike: the
    claim's in the evidence's own digits (``in_evidence_words``), the evidence's words as digits
    (``in_digits``); None when the numbers check does not pass or both read as written. The
    small NLI model reads "39 cases" against "Thirty-nine cases" as a changed number too."""
    texts = [text for _, text in sources]
    if not (result := check_numbers(claim, sources)) or not result.passed:
        return None
    reworded = in_evidence_words(claim, sources) or claim
    digits = [in_digits(text) for text in texts]
    if reworded == claim and digits == texts:
        return None
    return reworded, digits


def _written(quantity: Quantity) -> str:
    """A value as digits at its own precision: "67", "74.4%", "0.28-1.55"."""
    low = f"{quantity.low:.{quantity.decimals}f}"
    high = f"{quantity.high:.{quantity.decimals}f}"
    value = low if low == high else f"{low}-{high}"
    return value + ("%" if quantity.unit == "%" else "")


# A word and the number that labels it, joined by a hyphen or a space ("CheckMate-227",
# "transcript 6"); not a decimal, a range or a number run on ("6.5", "6-8", "6,000").
_LABELLED = re.compile(
    r"(?<![\w.\u00b7-])(?P<label>[^\W\d_]\w*[^\W\d_])[ -](?P<number>\d+)"
    r"(?![\w.,\u00b7-]?\d)(?![\w%])"
)
_YEAR_NUMBER = re.compile(r"(?:19|20)\d\d")
_MONTHS = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september"}
    | {"october", "november", "december"}
)


def _labelled(text: str) -> list[tuple[str, str, re.Match[str]]]:
    """(label key, number, match) for each number that labels a content word, years and
    quantities left out (those are ``extract_quantities``')."""
    quantities = [(q.start, q.end) for q in extract_quantities(text)]
    found = []
    for m in _LABELLED.finditer(text):
        label, number = m.group("label"), m.group("number")
        if _YEAR_NUMBER.fullmatch(number) or label.casefold() in _MONTHS:
            continue
        if not content_tokens(label) or _overlaps(m.start("number"), m.end(), quantities):
            continue
        found.append((label.casefold(), number, m))
    return found


def check_labelled_numbers(claim: str, sources: Sequence[tuple[str, str]]) -> CheckResult | None:
    """The first of the claim's labelled numbers that ``sources`` (PMID, text) number otherwise:
    they give its label only other numbers and state its number nowhere. None when there is
    none: a label numbered as in the evidence ("COVID-19") is no finding worth reporting."""
    ours = _labelled(claim)
    if not ours:
        return None  # the common case: the sources need no reading
    theirs: dict[str, dict[str, tuple[str, str]]] = {}  # label -> number -> (as written, PMID)
    for pmid, text in sources:
        for label, number, m in _labelled(text):
            theirs.setdefault(label, {}).setdefault(number, (m.group(0), pmid))
    for label, number, m in ours:
        numbers = theirs.get(label)
        if not numbers or number in numbers:
            continue
        stated = re.compile(rf"(?<![\d.\u00b7]){number}(?![\d]|[.\u00b7]\d)")
        if any(stated.search(text) for _, text in sources):
            continue
        written = [numbers[n] for n in sorted(numbers)]
        said = ", ".join(w for w, _ in written[:3])
        detail = f"{m.group(0)}: the evidence numbers it otherwise ({said})"
        return CheckResult(LABELLED, False, detail, written[0][1])
    return None


def _value(text: str) -> float:
    words = re.split(r"[\s,-]+", text.lower())
    if words[0] not in _WORD_VALUES:
        return float(re.sub(r"[,\s]", "", text).replace("\u00b7", "."))
    thousands, rest = 0, 0
    for word in words:
        if word == "thousand":
            thousands, rest = max(rest, 1) * 1000, 0
        elif word == "hundred":
            rest = max(rest, 1) * 100
        elif word != "and":
            rest += _WORD_VALUES[word]
    return float(thousands + rest)


def _run(claim: CheckInput) -> list[CheckResult]:
    """Numbers are compared with the windows that speak to the claim (an abstract's other
    percentages are about other things); a value found anywhere in the cited abstracts
    still counts as stated. A labelled number names something, so it is read against the whole
    of the cited records, title included (a quoted claim: its quote's sentences)."""
    on_topic = [(w.pmid, w.text) for w in claim.windows if w.score >= ON_TOPIC]
    result = check_numbers(claim.text, on_topic, claim.abbreviations)
    if result is not None and not result.passed:
        records = [(ev.pmid, ev.abstract) for ev in claim.evidence]
        anywhere = check_numbers(claim.text, records, claim.abbreviations)
        if anywhere is None or anywhere.passed:  # None: its bare numbers are all stated there
            result = anywhere
    # The windows are cut from the cited records, so the records alone hold every label; a
    # quoted claim has no records, only its quote's sentences as windows.
    labelled = check_labelled_numbers(
        claim.text, claim.records or [(w.pmid, w.text) for w in claim.windows]
    )
    return [r for r in (result, labelled) if r is not None]


NUMBERS_CHECK = Check(
    "numbers",
    _run,
    {
        NUMBERS: Effect.CONTRADICTS,
        UNSTATED: Effect.WITHHOLDS_SUPPORT,
        LABELLED: Effect.WITHHOLDS_SUPPORT,
        MISATTRIBUTED: Effect.WITHHOLDS_SUPPORT,
    },
)
