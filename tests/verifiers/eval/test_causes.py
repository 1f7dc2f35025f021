"""``eval answers`` names one cause for each missed correct sentence: the checks that failed on
it, else the judge or the model. A contradiction the engine set aside as resting on the study's
design (``finding``) lowered a verdict, so it never explains a contradiction."""

from __future__ import annotations

from verifiers._types import CheckResult, SentenceAnnotation, Verdict
from verifiers.engine import FINDING
from verifiers.eval.answers import cause

SET_ASIDE = CheckResult(FINDING, False, "the contradicting evidence states the study's aim")
NEGATION = CheckResult("negation", False, "'not' in the sentence, none in the evidence")


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
