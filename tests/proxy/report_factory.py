"""Real :class:`policies.DecidedReport` objects (reports as a client reads them, the policy's
decisions recorded) for the metrics and audit tests."""

from __future__ import annotations

from policies import Action, DecidedReport, DecidedSentence, ReportStatus
from verifiers import Citation, EvidenceSpan, NLILabel, Verdict


def sentence(
    index: int,
    verdict: Verdict,
    harm: int = 1,
    *,
    pmids: tuple[str, ...] = (),
    cited: tuple[tuple[str, bool], ...] = (),
    action: Action = Action.ANNOTATE,
) -> DecidedSentence:
    text = f"Sentence {index}."
    return DecidedSentence(
        index=index,
        text=text,
        start=index * 20,
        end=index * 20 + len(text),
        verdict=verdict,
        confidence=0.9,
        citations=tuple(
            Citation(raw=f"[PMID:{p}]", pmid=p, start=0, end=5, valid=ok) for p, ok in cited
        ),
        evidence=tuple(
            EvidenceSpan(p, "Title", "span", 0, 4, NLILabel.ENTAILMENT, 0.95) for p in pmids
        ),
        harm=harm,
        support=1.0 if verdict is Verdict.SUPPORTED else 0.0,
        risk=0.0 if verdict is Verdict.SUPPORTED else 1.0,
        action=action,
    )


def report(
    sentences: tuple[DecidedSentence, ...],
    *,
    status: ReportStatus = ReportStatus.VERIFIED,
    risk: float = 0.0,
    policy: str = "default",
) -> DecidedReport:
    counts: dict[str, int] = {}
    for s in sentences:
        counts[s.verdict.value] = counts.get(s.verdict.value, 0) + 1
    return DecidedReport(
        status=status,
        support=1.0 - risk,
        risk=risk,
        faithful=all(s.verdict is Verdict.SUPPORTED for s in sentences),
        counts=counts,
        sentences=sentences,
        policy=policy,
        latency_ms={"retrieval": 12.5, "verification": 40.0},
        model_version="nli-test-1",
    )
