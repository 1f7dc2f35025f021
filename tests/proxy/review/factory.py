"""Review items as the sampler makes them, for the store and estimator tests."""

from __future__ import annotations

from dataclasses import replace

from proxy.review.items import FailedCheck, Quote, ReviewItem

NOW = 1_780_000_000.0  # a fixed instant (2026-05-28 UTC)


def item(
    request_id: str = "req-1",
    sentence: int = 0,
    *,
    tenant: str | None = "clinic",
    verdict: str = "supported",
    inclusion: float = 1.0,
    **changes: object,
) -> ReviewItem:
    base = ReviewItem(
        request_id=request_id,
        choice=0,
        sentence=sentence,
        tenant=tenant,
        model="gpt-test",
        time=NOW,
        text=f"Sentence {sentence} of {request_id}.",
        verdict=verdict,
        confidence=0.9,
        harm=3,
        action="annotate",
        response_status="verified",
        response_sentences=1,
        needs_review=False,
        reason="sampled",
        inclusion=inclusion,
        response_inclusion=None,
        evidence=(Quote("12345", "A trial", "aspirin lowered risk", 10, 30, "entailment", 0.93),),
        failed_checks=(FailedCheck("numbers", "50 mg not in the evidence"),),
        rules_fired=("flag_unsupported",),
        decided_by="nli-test",
    )
    return replace(base, **changes)  # type: ignore[arg-type]
