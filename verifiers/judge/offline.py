"""The cascade outside the proxy, for ``veriproxy eval nli --judge`` and ``eval answers
--judge``: whole answers and single dataset claims, judged synchronously."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from verifiers._types import (
    Citation,
    Claim,
    Evidence,
    NLILabel,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
)
from verifiers.engine import Verifier
from verifiers.judge.cascade import Cascade

VERDICT_OF: dict[NLILabel, Verdict] = {
    NLILabel.ENTAILMENT: Verdict.SUPPORTED,
    NLILabel.NEUTRAL: Verdict.UNSUPPORTED,
    NLILabel.CONTRADICTION: Verdict.CONTRADICTED,
}


def verify_with_judge(
    verifier: Verifier, cascade: Cascade, answer: str, evidence: Sequence[Evidence]
) -> ResponseReport:
    """``verifier.verify``, then the cascade over the whole answer (one judge request)."""
    report = verifier.verify(answer, evidence)
    run = cascade.run(evidence)
    sentences = asyncio.run(run.escalate(report.sentences))
    return verifier.restated(report, sentences)


def judge_claim(
    cascade: Cascade,
    claim: str,
    evidence: Evidence,
    verdict: Verdict,
    confidence: float,
    decided_by: str,
    needs_review: bool = False,
) -> Verdict:
    """The verdict on a dataset claim against one abstract: the bundled ``verdict``, or the
    judge's where the cascade escalates it and its quote holds."""
    bundled = Claim(
        text=claim,
        start=0,
        end=len(claim),
        verdict=verdict,
        support=0.0,
        confidence=confidence,
        harm=1,
        decided_by=decided_by,
        needs_review=needs_review,
    )
    sentence = SentenceAnnotation(
        index=0,
        text=claim,
        start=0,
        end=len(claim),
        verdict=verdict,
        confidence=confidence,
        citations=(Citation("", evidence.pmid, 0, 0, True),),
        claims=(bundled,),
        decided_by=decided_by,
    )
    [judged] = asyncio.run(cascade.run([evidence]).escalate([sentence]))
    return judged.claims[0].verdict
