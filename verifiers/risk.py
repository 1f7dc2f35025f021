"""Harm-weighted risk score (after VetScore).

    score = Σ vᵢ · wᵢᵖ / Σ wᵢᵖ,   p = 2.426

vᵢ ∈ [0, 1] is the supported fraction of claim i, wᵢ its harm level (1-5). The exponent makes a
harm-5 claim weigh 5^2.426 ≈ 49.6 times a harm-1 claim, so one unsupported dosing claim pulls the
score down far more than an unsupported remark about study design. 1.0 means every bit of harm
potential is supported; with no check-worthy claims there is nothing at risk and the score is 1.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from verifiers._types import Claim, SentenceAnnotation, Verdict

VETSCORE_P = 2.426

# vᵢ for each verdict; UNCITED carries the verdict its sentence was checked to, NOT_CHECKWORTHY
# is excluded from the score altogether.
_SUPPORT = {
    Verdict.SUPPORTED: 1.0,
    Verdict.PARTIALLY_SUPPORTED: 0.5,
    Verdict.CONTRADICTED: 0.0,
    Verdict.UNSUPPORTED: 0.0,
    Verdict.INVALID_CITATION: 0.0,
}


def vetscore(supports: Sequence[float], harms: Sequence[int], p: float = VETSCORE_P) -> float:
    """Σ vᵢ·wᵢᵖ / Σ wᵢᵖ over paired claims; 1.0 when there are none.

    Raises ``ValueError`` on unpaired inputs, a support outside [0, 1] or a harm below 1.
    """
    if len(supports) != len(harms):
        raise ValueError(f"{len(supports)} supports but {len(harms)} harms")
    numerator = denominator = 0.0
    for support, harm in zip(supports, harms, strict=True):
        if not 0.0 <= support <= 1.0:  # also rejects NaN
            raise ValueError(f"support {support} outside [0, 1]")
        if harm < 1:
            raise ValueError(f"harm {harm} below 1")
        weight = float(harm) ** p
        numerator += support * weight
        denominator += weight
    if denominator == 0.0:
        return 1.0
    # Clamp float rounding (e.g. 0.9999999999999999 for all-supported) into the exact range.
    return min(1.0, max(0.0, numerator / denominator))


def support_of(verdict: Verdict, checked: Verdict | None = None) -> float | None:
    """vᵢ for a verdict: supported 1, partially supported 0.5, contradicted / unsupported /
    invalid citation 0; ``uncited`` takes the value of ``checked`` (what the uncited sentence was
    verified to against all evidence, 0 when it is not known); ``not_checkworthy`` → ``None``
    (excluded from the score)."""
    if verdict is Verdict.NOT_CHECKWORTHY:
        return None
    if verdict is Verdict.UNCITED:
        if checked is None or checked is Verdict.UNCITED:
            return 0.0
        return support_of(checked)
    return _SUPPORT[verdict]


def claims_risk(claims: Iterable[Claim], p: float = VETSCORE_P) -> float:
    """VetScore over claims, using each claim's own ``support`` (the pipeline's vᵢ) and skipping
    claims that are not check-worthy."""
    supports, harms = _claim_pairs(claims)
    return vetscore(supports, harms, p)


def sentence_risk(sentence: SentenceAnnotation, p: float = VETSCORE_P) -> float:
    """Per-sentence score: over its claims, or the sentence itself when it has none."""
    supports, harms = _weighted(sentence)
    return vetscore(supports, harms, p)


def response_risk(sentences: Iterable[SentenceAnnotation], p: float = VETSCORE_P) -> float:
    """Per-response score: one VetScore over the claims of every sentence together (not a mean of
    sentence scores, so a sentence with many low-harm claims cannot hide a harm-5 one)."""
    supports: list[float] = []
    harms: list[int] = []
    for sentence in sentences:
        s, h = _weighted(sentence)
        supports += s
        harms += h
    return vetscore(supports, harms, p)


def _weighted(sentence: SentenceAnnotation) -> tuple[list[float], list[int]]:
    if sentence.claims:
        return _claim_pairs(sentence.claims)
    support = support_of(sentence.verdict)
    return ([], []) if support is None else ([support], [sentence.harm])


def _claim_pairs(claims: Iterable[Claim]) -> tuple[list[float], list[int]]:
    scored = [c for c in claims if c.verdict is not Verdict.NOT_CHECKWORTHY]
    return [c.support for c in scored], [c.harm for c in scored]
