"""``eval answers`` names one cause for each missed correct sentence: the checks that failed on
it, else the judge or the model. Only a check that contradicts explains a contradiction: one the
engine set aside as resting on the study's design (``finding``) lowered a verdict, and one that
withholds support (an entity the evidence never names) cannot make one."""

from __future__ import annotations

from verifiers._types import CheckResult, SentenceAnnotation, Verdict
from verifiers.engine import FINDING
from verifiers.eval.answers import cause

SET_ASIDE = CheckResult(FINDING, False, "the contradicting evidence states the study's aim")
NEGATION = CheckResult("negation", False, "'not' in the sentence, none in the evidence")
ENTITY = CheckResult("entity", False, "'ipilimumab' is not in the evidence")
NUMBER = CheckResult("numbers", False, "'12%' where the evidence states 21%")


def sentence(verdict: Verdict, *checks: CheckResult, decided_by: str = "nli") -> SentenceAnnotation:
    text = "Aspirin did not reduce mortality."
    return SentenceAnnotation(
        0, text, 0, len(text), verdict, 0.9, checks=checks, decided_by=decided_by
    )


def test_a_set_aside_contradiction_explains_unsupported_but_not_contradicted() -> None:
    assert cause([sentence(Verdict.UNSUPPORTED, SET_ASIDE)], Verdict.UNSUPPORTED) == FINDING
    judged = sentence(Verdict.CONTRADICTED, SET_ASIDE, decided_by="judge:gpt-4o")
    assert cause([judged], Verdict.CONTRADICTED) == "judge"
    assert cause([sentence(Verdict.CONTRADICTED, SET_ASIDE)], Verdict.CONTRADICTED) == "model"


def test_failed_checks_name_the_cause_before_the_judge() -> None:
    judged = sentence(Verdict.CONTRADICTED, SET_ASIDE, NEGATION, decided_by="judge:gpt-4o")
    assert cause([judged], Verdict.CONTRADICTED) == "negation"


def test_a_withholding_check_beside_a_contradiction_is_not_its_cause() -> None:
    assert cause([sentence(Verdict.CONTRADICTED, ENTITY)], Verdict.CONTRADICTED) == "model"
    assert cause([sentence(Verdict.CONTRADICTED, ENTITY, NUMBER)], Verdict.CONTRADICTED) == (
        "numbers"
    )
    assert cause([sentence(Verdict.UNSUPPORTED, ENTITY)], Verdict.UNSUPPORTED) == "entity"
