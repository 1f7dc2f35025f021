"""The content words every overlap counts: the forms of one word meet, other words stay apart."""

from __future__ import annotations

import pytest

from verifiers.checks.normalise import content_tokens


@pytest.mark.parametrize(
    "forms",
    [
        "increase increased increases increasing",
        "study studies studied",
        "surgery surgeries",
        "therapy therapies",
        "injury injuries",
        "deficiency deficiencies",
        "apply applied applies applying",
    ],
)
def test_the_forms_of_a_word_meet(forms: str) -> None:
    assert len(content_tokens(forms)) == 1, content_tokens(forms)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("day", "daily"),  # a vowel before the "y": "day" keeps it
        ("therapy", "therapeutic"),
        ("surgery", "surgeon"),
    ],
)
def test_other_words_stay_apart(one: str, other: str) -> None:
    assert not content_tokens(one) & content_tokens(other)
