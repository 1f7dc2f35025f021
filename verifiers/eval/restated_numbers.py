"""Numbers of real abstracts restated as answers restate them (``veriproxy eval numbers``).

An answer seldom copies "74.4%" or "1,099 women": it writes "about 75%", "three quarters of",
"more than 1,000 participants". Each value an evidence sentence of the held-out ``eval
answers`` items states exactly, with its unit, is restated in the shapes below, and each
restatement must pass the numbers check against its own sentence (a failure is a correct
sentence flagged, or contradicted); the same restatement with its value doubled must not pass
(a pass is a changed number let through). Values are read by the check's own extraction, so
what it cannot read is not restated here.

- ``about``: "about N" with N the value rounded to a multiple of 5, where that is within 5%
  of it and not the value itself (74.4% -> "about 75%");
- ``more_than``: "more than F" with F the value floored to its leading digit (1,099 women ->
  "more than 1,000 women"), from 200 up, where F is within a third below it;
- ``fraction``: a percentage within two points of a quarter, a third, a half, two thirds or
  three quarters, as those words (no doubled form: a fraction the evidence does not state is
  not judged);
- ``people``: a count of people under another name (41 patients -> "41 participants");
- ``mean``: the mean written before its spread ("107.4 ± 30.0 minutes" -> "107.4 minutes");
- ``ratio``: a ratio as the change it names ("hazard ratio, 0.62" -> "a 38% lower risk"; the
  doubled form "a 76% lower risk");
- ``words``: a value written without decimals, from 2 to 499, in words as num2words writes
  them (67 patients -> "sixty-seven patients", 112 -> "one hundred and twelve").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from num2words import num2words

from verifiers.checks.numbers import (
    Quantity,
    Reading,
    check_numbers,
    extract_quantities,
    ratio_changes,
)
from verifiers.training.benchmarks import split_sentences

SHAPES = ("about", "more_than", "fraction", "people", "mean", "ratio", "words")
_FRACTIONS: tuple[tuple[float, str], ...] = (
    (25.0, "a quarter of"),
    (100 / 3, "a third of"),
    (50.0, "half of"),
    (200 / 3, "two thirds of"),
    (75.0, "three quarters of"),
)
_OTHER_NAME = {"patients": "participants", "participants": "patients", "women": "participants"}
_OTHER_NAME |= {"men": "patients", "children": "patients", "adults": "participants"}
_LEADING_VALUE = re.compile(r"[\d.,\u00b7]+(?:[ \u00a0\u2009\u202f]\d{3})*")  # "10 931 patients"
_SPREAD_BEFORE = re.compile(r"(?P<mean>\d+(?:\.\d+)?)\s*(?:\u00b1|\+/-)\s*$")


@dataclass(frozen=True, slots=True)
class Restatement:
    """A value of ``sentence`` restated as ``claim``; ``changed``: the same words with the value
    doubled (None where no such form is checked)."""

    shape: str
    sentence: str
    claim: str
    changed: str | None


@dataclass(slots=True)
class ShapeFigures:
    restated: int = 0
    passed: int = 0
    changed: int = 0
    caught: int = 0
    missed: list[str] = field(default_factory=list)  # up to five restatements that failed

    def as_dict(self) -> dict[str, object]:
        return {
            "restated": self.restated,
            "passed_rate": round(self.passed / self.restated, 4) if self.restated else None,
            "changed": self.changed,
            "caught_rate": round(self.caught / self.changed, 4) if self.changed else None,
            "missed": self.missed,
        }


def _written(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:g}"


def _unit_as_written(quantity: Quantity) -> str | None:
    """The unit's words after the value ("%", "minutes", "women"), or None for a range, a year,
    a value written in words or one that shares another's unit."""
    leading = _LEADING_VALUE.match(quantity.text)
    if leading is None or quantity.low != quantity.high or quantity.unit == "year":
        return None
    unit = quantity.text[leading.end() :].strip()
    return unit or None


def restatements(sentence: str) -> Iterator[Restatement]:
    """Every restatement of the exactly stated values of ``sentence`` (see the module)."""
    for quantity in extract_quantities(sentence):
        unit = _unit_as_written(quantity)
        if unit is None or quantity.reading is not Reading.EXACT or quantity.fraction:
            continue
        value, space = quantity.low, "" if unit.startswith("%") else " "

        def said(words: str, number: float, *, space: str = space, unit: str = unit) -> str:
            return f"The value was {words} {_written(number)}{space}{unit}."

        rounded = 5 * round(value / 5)
        if value >= 20 and rounded != value and abs(rounded - value) <= 0.05 * value:
            yield Restatement("about", sentence, said("about", rounded), said("about", 2 * rounded))
        if value >= 200 and value == int(value):
            step = 10 ** (len(str(int(value))) - 1)
            floor = step * (int(value) // step)
            if floor != value and floor >= value / 1.5:
                yield Restatement(
                    "more_than", sentence, said("more than", floor), said("more than", 2 * floor)
                )
        if quantity.unit == "%":
            for share, words in _FRACTIONS:
                if abs(value - share) <= 2:
                    yield Restatement("fraction", sentence, f"About {words} them did.", None)
        other = _OTHER_NAME.get(unit.lower())
        if other and value == int(value):
            yield Restatement(
                "people",
                sentence,
                f"There were {_written(value)} {other}.",
                f"There were {_written(2 * value)} {other}.",
            )
        if quantity.decimals == 0 and 2 <= value < 500:
            yield Restatement(
                "words",
                sentence,
                f"The value was {num2words(int(value))}{space}{unit}.",
                f"The value was {num2words(2 * int(value))}{space}{unit}.",
            )
        spread = _SPREAD_BEFORE.search(sentence, 0, quantity.start)
        if spread is not None:
            mean = float(spread.group("mean"))
            yield Restatement(
                "mean",
                sentence,
                f"The mean was {spread.group('mean')}{space}{unit}.",
                f"The mean was {2 * mean:g}{space}{unit}.",
            )
    yield from _ratio_restatements(sentence)


def _ratio_restatements(sentence: str) -> Iterator[Restatement]:
    for change in ratio_changes(sentence):
        if change.decimals == 0 and 5 <= change.low <= 90:
            way = "lower" if change.change < 0 else "higher"
            yield Restatement(
                "ratio",
                sentence,
                f"It gave a {change.low:g}% {way} risk.",
                f"It gave a {2 * change.low:g}% {way} risk.",
            )


def evaluate(sentences: Iterable[str]) -> dict[str, ShapeFigures]:
    """Each restatement of each sentence (once per distinct sentence) through the numbers
    check against that sentence alone."""
    figures = {shape: ShapeFigures() for shape in SHAPES}
    for sentence in dict.fromkeys(sentences):
        evidence = [("evidence", sentence)]
        for restated in restatements(sentence):
            shape = figures[restated.shape]
            shape.restated += 1
            result = check_numbers(restated.claim, evidence)
            if result is not None and result.passed:
                shape.passed += 1
            elif len(shape.missed) < 5:
                shape.missed.append(f"{restated.claim} | {sentence[:200]}")
            if restated.changed is not None:
                shape.changed += 1
                changed = check_numbers(restated.changed, evidence)
                shape.caught += not (changed is not None and changed.passed)
    return figures


def evidence_sentences(abstracts: Iterable[str]) -> Iterator[str]:
    for abstract in abstracts:
        yield from split_sentences(abstract)
