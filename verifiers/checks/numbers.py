"""Numbers and units: a claim's quantity must match one the evidence states in the same unit.

NLI models read "5 mg" and "50 mg" as near-identical, so quantities are compared exactly: a
claim quantity fails when the evidence states quantities in the same unit and none of them
matches (within the claim's own rounding, or inside an evidence range). A quantity whose unit the
evidence never mentions is not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers._types import CheckResult

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
    "l": "l",
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
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<low>{_NUMBER})(?:\s*(?:-|\u2013|to)\s*(?P<high>{_NUMBER}))?"
    rf"\s*-?\s*(?P<unit>{_UNIT_ALT})(?![\w/])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number (or range) with its canonical unit and its span in the text."""

    low: float
    high: float
    unit: str
    decimals: int
    text: str
    start: int
    end: int

    def matches(self, other: Quantity) -> bool:
        """Same unit and ``self`` (a claim value) equals ``other`` up to self's rounding, or lies
        inside other's range."""
        if self.unit != other.unit:
            return False
        tolerance = 0.5 * 10.0**-self.decimals
        if other.low != other.high and self.low == self.high:
            return other.low - tolerance <= self.low <= other.high + tolerance
        return abs(self.low - other.low) <= tolerance and abs(self.high - other.high) <= tolerance


def extract_quantities(text: str) -> list[Quantity]:
    """All number + unit mentions in ``text``."""
    found = []
    for match in _QUANTITY.finditer(text):
        low_text = match.group("low")
        high_text = match.group("high") or low_text
        decimals = len(low_text.partition(".")[2])
        found.append(
            Quantity(
                low=_value(low_text),
                high=_value(high_text),
                unit=_UNITS[match.group("unit").lower()],
                decimals=decimals,
                text=match.group(0),
                start=match.start(),
                end=match.end(),
            )
        )
    return found


def check_numbers(claim: str, sources: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Compare the claim's quantities with those of ``sources`` (pairs of PMID and text).
    None when the claim has no quantity the evidence could confirm or refute."""
    evidence = [(pmid, q) for pmid, text in sources for q in extract_quantities(text)]
    verdicts: list[CheckResult] = []
    for quantity in extract_quantities(claim):
        same_unit = [(pmid, q) for pmid, q in evidence if q.unit == quantity.unit]
        if not same_unit:
            continue
        match = next((pmid for pmid, q in same_unit if quantity.matches(q)), None)
        if match is not None:
            verdicts.append(CheckResult("numbers", True, f"{quantity.text} found", match))
            continue
        stated = ", ".join(sorted({q.text for _, q in same_unit})[:5])
        pmid = same_unit[0][0]
        detail = f"{quantity.text} not in the evidence, which states {stated}"
        verdicts.append(CheckResult("numbers", False, detail, pmid))
    if not verdicts:
        return None
    failed = [v for v in verdicts if not v.passed]
    return failed[0] if failed else verdicts[0]


def _value(text: str) -> float:
    return float(text.replace(",", ""))
