"""Harm-weighted support and risk (after VetScore).

    support = Σ vᵢ · wᵢᵖ / Σ wᵢᵖ          risk = Σ (1 - vᵢ) · wᵢᵖ / Σ wᵢᵖ,   p = 2.426

vᵢ ∈ [0, 1] is the supported fraction of claim i, wᵢ its harm level (1-5). The exponent makes a
harm-5 claim weigh 5^2.426 ≈ 49.6 times a harm-1 claim, so one unsupported dosing claim moves the
scores far more than an unsupported remark about study design. ``support`` (VetScore) is the
harm-weighted share that the evidence bears out, higher is better; ``risk`` is the harm-weighted
share that is unsupported, contradicted or cites nothing real, higher is worse. With no
check-worthy claims there is nothing at risk: support 1.0, risk 0.0. Protocol 1.x called the
support share ``risk``; 2.0 gives each name its one meaning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from verifiers._types import Claim, SentenceAnnotation, Verdict

VETSCORE_P = 2.426

# vᵢ for each verdict; UNCITED carries the verdict its sentence was checked to, NOT_CHECKWORTHY
# is excluded from the scores altogether.
_SUPPORT = {
    Verdict.SUPPORTED: 1.0,
    Verdict.PARTIALLY_SUPPORTED: 0.5,
    Verdict.CONTRADICTED: 0.0,
    Verdict.UNSUPPORTED: 0.0,
    Verdict.INVALID_CITATION: 0.0,
}


def vetscore(supports: Sequence[float], harms: Sequence[int], p: float = VETSCORE_P) -> float:
    """Harm-weighted support Σ vᵢ·wᵢᵖ / Σ wᵢᵖ over paired claims; 1.0 when there are none.

    Raises ``ValueError`` on unpaired inputs, a support outside [0, 1] or a harm below 1.
    """
    return _shares(supports, harms, p)[0]


def vetrisk(supports: Sequence[float], harms: Sequence[int], p: float = VETSCORE_P) -> float:
    """Harm-weighted risk Σ (1 - vᵢ)·wᵢᵖ / Σ wᵢᵖ over paired claims; 0.0 when there are none.

    Raises ``ValueError`` as :func:`vetscore` does.
    """
    return _shares(supports, harms, p)[1]


def _shares(supports: Sequence[float], harms: Sequence[int], p: float) -> tuple[float, float]:
    if len(supports) != len(harms):
        raise ValueError(f"{len(supports)} supports but {len(harms)} harms")
    supported = unsupported = 0.0
    for support, harm in zip(supports, harms, strict=True):
        if not 0.0 <= support <= 1.0:  # also rejects NaN
            raise ValueError(f"support {support} outside [0, 1]")
        if harm < 1:
            raise ValueError(f"harm {harm} below 1")
        weight = float(harm) ** p
        supported += support * weight
        unsupported += (1.0 - support) * weight
    total = supported + unsupported
    if total == 0.0:
        return 1.0, 0.0
    # Clamp float rounding (e.g. 0.9999999999999999 for all-supported) into the exact range.
    return _unit(supported / total), _unit(unsupported / total)


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))


def support_of(verdict: Verdict, checked: Verdict | None = None) -> float | None:
    """vᵢ for a verdict: supported 1, partially supported 0.5, contradicted / unsupported /
    invalid citation 0; ``uncited`` takes the value of ``checked`` (what the uncited sentence was
    verified to against all evidence, 0 when it is not known); ``not_checkworthy`` → ``None``
    (excluded from the scores)."""
    if verdict is Verdict.NOT_CHECKWORTHY:
        return None
    if verdict is Verdict.UNCITED:
        if checked is None or checked is Verdict.UNCITED:
            return 0.0
        return support_of(checked)
    return _SUPPORT[verdict]


def claims_support(claims: Iterable[Claim], p: float = VETSCORE_P) -> float:
    """Harm-weighted support over claims, using each claim's own ``support`` (the pipeline's vᵢ)
    and skipping claims that are not check-worthy."""
    return vetscore(*_claim_pairs(claims), p)


def claims_risk(claims: Iterable[Claim], p: float = VETSCORE_P) -> float:
    """Harm-weighted risk over claims, as :func:`claims_support` weighs them."""
    return vetrisk(*_claim_pairs(claims), p)


def sentence_support(sentence: SentenceAnnotation, p: float = VETSCORE_P) -> float:
    """Per-sentence support: over its claims, or the sentence itself when it has none."""
    return vetscore(*_weighted(sentence), p)


def sentence_risk(sentence: SentenceAnnotation, p: float = VETSCORE_P) -> float:
    """Per-sentence risk: over its claims, or the sentence itself when it has none."""
    return vetrisk(*_weighted(sentence), p)


def response_support(sentences: Iterable[SentenceAnnotation], p: float = VETSCORE_P) -> float:
    """Per-response support: one score over the claims of every sentence together (not a mean of
    sentence scores, so a sentence with many low-harm claims cannot hide a harm-5 one)."""
    return vetscore(*_response_pairs(sentences), p)


def response_risk(sentences: Iterable[SentenceAnnotation], p: float = VETSCORE_P) -> float:
    """Per-response risk, over the claims of every sentence together as
    :func:`response_support` weighs them."""
    return vetrisk(*_response_pairs(sentences), p)


def _response_pairs(sentences: Iterable[SentenceAnnotation]) -> tuple[list[float], list[int]]:
    supports: list[float] = []
    harms: list[int] = []
    for sentence in sentences:
        s, h = _weighted(sentence)
        supports += s
        harms += h
    return supports, harms


def _weighted(sentence: SentenceAnnotation) -> tuple[list[float], list[int]]:
    if sentence.claims:
        return _claim_pairs(sentence.claims)
    support = support_of(sentence.verdict)
    return ([], []) if support is None else ([support], [sentence.harm])


def _claim_pairs(claims: Iterable[Claim]) -> tuple[list[float], list[int]]:
    scored = [c for c in claims if c.verdict is not Verdict.NOT_CHECKWORTHY]
    return [c.support for c in scored], [c.harm for c in scored]
