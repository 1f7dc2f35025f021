"""The judge cascade against a real HTTP judge: the upstream emulator scripted to answer as an
LLM judge would (through litellm, as in production), over the bundled model's real verdicts on
a real PubMedQA abstract."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from proxy.state.cache import MemoryCache
from proxy.state.ratelimit import MemoryRateLimiter
from proxy.testing.server_thread import RunningEmulator
from proxy.verification.judge import TenantTokenBudget
from tests.proxy.ibuprofen import DOC, SUPPORTED, WRONG_DOSE
from tests.verifiers.judge.scripted import judge_reply
from verifiers import (
    EscalationOutcome,
    EscalationSummary,
    Evidence,
    SentenceAnnotation,
    Verdict,
    Verifier,
    make_evidence,
)
from verifiers.judge import (
    Cascade,
    EscalationRule,
    EscalationSettings,
    JudgeBudget,
    JudgeCache,
    LiteLLMJudgeClient,
    LLMEndpoint,
)

JUDGE = "emu-judge"
EVERY_CLAIM = EscalationRule(name="all", confidence_below=1.0)


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier.from_config()


@pytest.fixture(scope="module")
def evidence() -> list[Evidence]:
    return [make_evidence(DOC["pmid"], DOC["title"], DOC["text"])]


@pytest.fixture(scope="module")
def bundled(verifier: Verifier, evidence: list[Evidence]) -> tuple[SentenceAnnotation, ...]:
    """The bundled model's annotations: the correct sentence supported, the tenfold dose
    contradicted."""
    report = verifier.verify(f"{SUPPORTED} {WRONG_DOSE}", evidence)
    assert [s.verdict for s in report.sentences] == [Verdict.SUPPORTED, Verdict.CONTRADICTED]
    return report.sentences


def escalate(
    emulator: RunningEmulator,
    verifier: Verifier,
    evidence: list[Evidence],
    sentences: Sequence[SentenceAnnotation],
    *,
    model: str = JUDGE,
    api_base: str | None = None,
    budget: JudgeBudget | None = None,
    cache: JudgeCache | None = None,
    **settings: Any,
) -> tuple[list[SentenceAnnotation], EscalationSummary]:
    options: dict[str, Any] = {"judge": model, "when": (EVERY_CLAIM,), **settings}
    endpoint = LLMEndpoint(
        f"openai/{model}", api_base=api_base or emulator.base_url, api_key="sk-judge"
    )
    cascade = Cascade(
        EscalationSettings(**options),
        LiteLLMJudgeClient(endpoint, name=model),
        verifier.selector,
        nli=verifier.nli,
        budget=budget,
        cache=cache,
    )
    run = cascade.run(evidence, tenant="acme")
    out = asyncio.run(run.escalate(sentences))
    return out, run.summary()


def test_a_quoted_judge_verdict_overturns_the_bundled_one(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    emulator.emulator.reply = judge_reply("contradicted")
    out, summary = escalate(emulator, verifier, evidence, bundled[:1])
    sentence = out[0]
    assert sentence.verdict is Verdict.CONTRADICTED
    assert sentence.decided_by == f"judge:{JUDGE}"
    assert sentence.bundled_verdict is Verdict.SUPPORTED
    claim = sentence.claims[0]
    assert claim.escalation is not None
    assert claim.escalation.outcome is EscalationOutcome.JUDGED
    assert claim.escalation.bundled_verdict is Verdict.SUPPORTED
    assert claim.escalation.evidence == (DOC["pmid"],)
    assert claim.escalation.quote and claim.escalation.quote.split()[0] in DOC["text"]
    assert claim.evidence and claim.evidence[0].score == 1.0
    assert (summary.escalated, summary.judged, summary.overturned, summary.requests) == (1, 1, 1, 1)
    assert summary.prompt_tokens > 0 and summary.completion_tokens > 0
    assert summary.judge_error is None
    # One request, asking for structured output, with windows and the whole abstract.
    [request] = emulator.stats.requests
    assert request["response_format"]["type"] == "json_schema"
    user = request["messages"][-1]["content"]
    assert 'id="W1"' in user and f'id="A1" pmid="{DOC["pmid"]}"' in user


def test_a_quote_that_is_not_in_the_evidence_is_rejected(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    emulator.emulator.reply = judge_reply("supported", quote="ibuprofen cures every cancer")
    out, summary = escalate(emulator, verifier, evidence, bundled[1:])
    sentence = out[0]
    assert sentence.verdict is Verdict.CONTRADICTED  # the bundled verdict stands
    assert sentence.decided_by == verifier.nli.version
    note = sentence.claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.QUOTE_REJECTED
    assert note.verdict is Verdict.SUPPORTED and "not in the evidence" in note.reason
    assert (summary.judged, summary.quote_rejected) == (0, 1)


def test_an_uncited_verdict_is_rejected(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    emulator.emulator.reply = json.dumps(
        {
            "verdicts": [
                {"claim": 1, "label": "supported", "evidence": ["W99"], "quote": "ibuprofen"}
            ]
        }
    )
    out, summary = escalate(emulator, verifier, evidence, bundled[1:])
    assert out[0].verdict is Verdict.CONTRADICTED
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.QUOTE_REJECTED
    assert "cites no evidence" in note.reason
    assert summary.quote_rejected == 1


# The timeout only has to fire for the slow judge: the others answer at once, but the first
# litellm call of a process (its import) can take seconds on a slow machine.
ANSWERS_AT_ONCE_S = 30.0


@pytest.mark.parametrize(
    ("reply", "mode", "timeout", "error"),
    [
        ("I think the claim is fine.", "", ANSWERS_AT_ONCE_S, "malformed judge reply"),
        ('{"verdicts": "all good"}', "", ANSWERS_AT_ONCE_S, "malformed judge reply"),
        ('{"verdicts": []}', "", ANSWERS_AT_ONCE_S, None),  # valid JSON, no verdict for the claim
        (None, "slow-3000", 0.5, "judge timed out after 0.5s"),
        (
            None,
            "error-503",
            ANSWERS_AT_ONCE_S,
            "judge emu-error-503 failed: ServiceUnavailableError",
        ),
    ],
)
def test_a_failing_judge_keeps_the_bundled_verdicts(
    emulator: RunningEmulator,
    verifier: Verifier,
    evidence: list[Evidence],
    bundled: Any,
    reply: str | None,
    mode: str,
    timeout: float,
    error: str | None,
) -> None:
    emulator.emulator.reply = reply
    model = f"emu-{mode}" if mode else JUDGE
    out, summary = escalate(
        emulator, verifier, evidence, bundled, model=model, timeout_seconds=timeout
    )
    assert [s.verdict for s in out] == [s.verdict for s in bundled]
    assert all(s.decided_by == verifier.nli.version for s in out)
    outcomes = {c.escalation.outcome for s in out for c in s.claims if c.escalation}
    assert outcomes == {EscalationOutcome.JUDGE_ERROR}
    assert summary.judged == 0 and summary.escalated == 2
    if error is None:
        assert summary.judge_error is None
        assert all(
            "no verdict" in c.escalation.reason for s in out for c in s.claims if c.escalation
        )
    else:
        assert summary.judge_error is not None and summary.judge_error.startswith(error)


def test_a_judge_that_is_down_keeps_the_bundled_verdicts(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    from tests.proxy.redis_helpers import free_port

    out, summary = escalate(
        emulator, verifier, evidence, bundled, api_base=f"http://127.0.0.1:{free_port()}/v1"
    )
    assert [s.verdict for s in out] == [s.verdict for s in bundled]
    assert summary.judge_error is not None and "failed" in summary.judge_error


def test_max_claims_sends_the_highest_expected_harm_first(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    """The claim whose wrong verdict would cost most goes first: the calibrated probability
    that it is wrong times its harm."""
    emulator.emulator.reply = judge_reply("unsupported")
    expected = [(1 - s.claims[0].confidence) * s.claims[0].harm for s in bundled[:2]]
    assert expected[0] != expected[1]
    first = expected.index(max(expected))
    out, summary = escalate(emulator, verifier, evidence, bundled, max_claims=1)
    sent, skipped = out[first].claims[0].escalation, out[1 - first].claims[0].escalation
    assert sent is not None and sent.outcome is EscalationOutcome.JUDGED
    assert skipped is not None and skipped.outcome is EscalationOutcome.MAX_CLAIMS
    assert out[first].verdict is Verdict.UNSUPPORTED
    assert out[1 - first].bundled_verdict is None  # never sent
    assert summary.escalation_skipped == {"max_claims": 1}


def test_cached_rulings_answer_without_a_request(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    emulator.emulator.reply = judge_reply("contradicted")
    cache = MemoryCache("judge")
    first, _ = escalate(emulator, verifier, evidence, bundled[:1], cache=cache)
    again, summary = escalate(emulator, verifier, evidence, bundled[:1], cache=cache)
    assert len(emulator.stats.requests) == 1
    assert again[0].verdict is first[0].verdict is Verdict.CONTRADICTED
    note = again[0].claims[0].escalation
    assert note is not None and note.cached
    assert (summary.cached, summary.requests, summary.judged) == (1, 0, 1)


def test_a_spent_budget_leaves_the_bundled_verdict(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    emulator.emulator.reply = judge_reply("contradicted")
    budget = TenantTokenBudget(MemoryRateLimiter(), tokens_per_minute=10)
    first, spent = escalate(emulator, verifier, evidence, bundled[:1], budget=budget)
    assert first[0].verdict is Verdict.CONTRADICTED and spent.prompt_tokens > 10
    out, summary = escalate(emulator, verifier, evidence, bundled[:1], budget=budget)
    assert len(emulator.stats.requests) == 1
    assert out[0].verdict is Verdict.SUPPORTED
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.BUDGET
    assert summary.escalation_skipped == {"budget": 1} and summary.escalated == 0


def test_a_judge_never_outvotes_a_failed_number_check(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    """The tenfold dose: the numbers check found 200 mg stated as 20mg. A judge that calls it
    supported, with a real quote, does not get to clear it."""
    dose = bundled[1]
    assert any(c.name == "numbers" and not c.passed for c in dose.claims[0].checks)
    emulator.emulator.reply = judge_reply("supported", quote="bupivacaine 20mg plus morphine")
    out, summary = escalate(emulator, verifier, evidence, [dose])
    assert out[0].verdict is Verdict.CONTRADICTED
    assert out[0].decided_by == verifier.nli.version
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.CHECK_FAILED
    assert note.verdict is Verdict.SUPPORTED and note.quote
    assert (summary.judged, summary.check_failed) == (0, 1)


# The probe's case: a real sentence of the abstract, quoted to call an unrelated claim supported.
METFORMIN_PMID = "31000001"
METFORMIN = (
    "Metformin lowers fasting blood glucose in adults with type 2 diabetes. In this randomised "
    "trial of 312 patients with advanced pancreatic cancer, adding metformin to gemcitabine did "
    "not improve overall survival (median 8.2 versus 8.4 months)."
)
SURVIVAL = (
    f"Metformin doubles overall survival in patients with advanced pancreatic cancer "
    f"[PMID:{METFORMIN_PMID}]."
)


def test_a_supported_verdict_whose_quote_is_beside_the_claim_does_not_stand(
    emulator: RunningEmulator, verifier: Verifier
) -> None:
    evidence = [make_evidence(METFORMIN_PMID, "Metformin in pancreatic cancer", METFORMIN)]
    [bundled] = verifier.verify(SURVIVAL, evidence).sentences
    assert bundled.verdict is not Verdict.SUPPORTED
    quote = "Metformin lowers fasting blood glucose"
    assert quote in METFORMIN  # real evidence: the quote check alone would let it through
    emulator.emulator.reply = judge_reply("supported", quote=quote)
    out, summary = escalate(emulator, verifier, evidence, [bundled])
    assert out[0].verdict is bundled.verdict
    assert out[0].decided_by == verifier.nli.version
    assert out[0].bundled_verdict is bundled.verdict
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.QUOTE_IRRELEVANT
    assert note.verdict is Verdict.SUPPORTED and note.quote == quote
    assert "does not bear on the claim" in note.reason
    assert (summary.judged, summary.quote_irrelevant, summary.overturned) == (0, 1, 0)


def test_a_supported_verdict_quoting_what_bears_on_the_claim_stands(
    emulator: RunningEmulator, verifier: Verifier, evidence: list[Evidence], bundled: Any
) -> None:
    """The scripted judge quotes the abstract's sentence closest to the claim: relevant, so the
    judge's verdict stands (here agreeing with the bundled one)."""
    emulator.emulator.reply = judge_reply("supported")
    out, summary = escalate(emulator, verifier, evidence, bundled[:1])
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.JUDGED, note
    assert out[0].decided_by == f"judge:{JUDGE}"
    assert (summary.judged, summary.quote_irrelevant) == (1, 0)


# A judge's quote that says the opposite of the claim (issue 26): in the evidence, on topic, and
# the claim's own checks pass: it says more than the sentence it turns round ("twelve weeks of
# daily home exercise"), so the direction check takes no sentence for a copy of it (the trial's
# first sentence, its closest, points no way), while the quote, read as a claim, is a copy of it.
KNEE_PMID = "31000003"
KNEE = (
    "We randomised 312 adults with knee osteoarthritis to daily exercise or usual care for 12 "
    "weeks. Daily exercise worsened knee pain. Function scores were similar."
)
KNEE_CLAIM = (
    "Knee pain improved with twelve weeks of daily home exercise in adults with knee "
    f"osteoarthritis [PMID:{KNEE_PMID}]."
)
WORSENED = "Daily exercise worsened knee pain"


@pytest.mark.parametrize(
    "bundled_verdict", [None, Verdict.UNSUPPORTED], ids=["real", "unsupported"]
)
def test_a_supported_verdict_whose_own_quote_says_the_opposite_does_not_stand(
    emulator: RunningEmulator, verifier: Verifier, bundled_verdict: Verdict | None
) -> None:
    """The bundled model misses the flip (it calls the claim supported); a judge that agrees,
    quoting the sentence that says the pain worsened, does not make it the judge's verdict, and
    where the bundled model said unsupported the judge does not overturn it."""
    evidence = [make_evidence(KNEE_PMID, "Exercise for knee osteoarthritis", KNEE)]
    [sentence] = verifier.verify(KNEE_CLAIM, evidence).sentences
    assert all(check.passed for claim in sentence.claims for check in claim.checks)
    if bundled_verdict is not None:
        claims = tuple(replace(c, verdict=bundled_verdict) for c in sentence.claims)
        sentence = replace(sentence, claims=claims, verdict=bundled_verdict)
    emulator.emulator.reply = judge_reply("supported", quote=WORSENED)
    out, summary = escalate(emulator, verifier, evidence, [sentence])
    assert out[0].verdict is sentence.verdict
    assert out[0].decided_by == verifier.nli.version
    note = out[0].claims[0].escalation
    assert note is not None and note.outcome is EscalationOutcome.QUOTE_CONTRADICTS
    assert note.verdict is Verdict.SUPPORTED and note.quote == WORSENED
    assert "contradicts the claim" in note.reason and "direction" in note.reason
    assert (summary.judged, summary.quote_contradicts, summary.overturned) == (0, 1, 0)
