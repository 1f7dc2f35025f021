from __future__ import annotations

import pytest

from verifiers.checks.numbers import check_numbers, extract_quantities

# Check-COVID dev, cord_id biho913w (MIT): the evidence sentence of claim 60536a226bc088b6d218dc56.
EVIDENCE = [
    (
        "biho913w",
        "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients).",
    )
]
DOSE = [
    ("1", "Patients received 5 mg daily for 12 weeks; 10-20 mg/kg was given i.v. to 3,199 adults.")
]


def test_extracts_values_units_and_ranges() -> None:
    found = {(q.low, q.high, q.unit) for q in extract_quantities(DOSE[0][1])}
    assert found == {
        (5.0, 5.0, "mg"),
        (12.0, 12.0, "wk"),
        (10.0, 20.0, "mg/kg"),
        (3199.0, 3199.0, "adults"),
    }


@pytest.mark.parametrize(
    ("claim", "passed"),
    [
        ("Most COVID-19-positive patients (81%) were asymptomatic.", True),
        ("Most COVID-19-positive patients (18%) were asymptomatic.", False),
        ("About 80.7 percent of patients had no symptoms.", False),
        ("Asymptomatic patients numbered 104 patients.", True),
    ],
)
def test_percentages_and_counts(claim: str, passed: bool) -> None:
    result = check_numbers(claim, EVIDENCE)
    assert result is not None and result.passed is passed


@pytest.mark.parametrize(
    ("claim", "passed"),
    [
        ("The dose was 5 mg.", True),
        ("The dose was 50 mg.", False),
        ("A dose of 15 mg/kg was used.", True),  # inside the stated range
        ("A dose of 25 mg/kg was used.", False),
        ("Treatment lasted 12 weeks.", True),
        ("Treatment lasted 6 weeks.", False),
    ],
)
def test_doses_and_durations(claim: str, passed: bool) -> None:
    result = check_numbers(claim, DOSE)
    assert result is not None and result.passed is passed


def test_rounding_follows_the_claim_precision() -> None:
    assert check_numbers("It fell by 30%.", [("1", "It fell by 29.7%.")]).passed  # type: ignore[union-attr]
    assert not check_numbers("It fell by 30.0%.", [("1", "It fell by 29.7%.")]).passed  # type: ignore[union-attr]


def test_no_verdict_when_the_evidence_has_no_such_unit() -> None:
    assert check_numbers("The dose was 50 mg.", EVIDENCE) is None
    assert check_numbers("Aspirin lowers risk.", DOSE) is None
