from __future__ import annotations

import dataclasses

import pytest

from policies import (
    Action,
    ReportStatus,
    SentenceDecision,
    apply_policy,
    decide_and_apply,
    decide_report,
    decide_response,
    decide_sentence,
    load_policy,
    parse_policy,
)
from policies.errors import PolicyFileError
from policies.store import PRESETS_DIR
from verifiers import Citation, QuoteCheck, QuoteStatus, ResponseReport, SentenceAnnotation, Verdict


def sentence(
    verdict: Verdict = Verdict.SUPPORTED,
    *,
    harm: int = 1,
    confidence: float = 0.9,
    risk: float = 0.0,
    citations: tuple[bool, ...] = (),
    index: int = 0,
    quotes: tuple[QuoteStatus, ...] = (),
) -> SentenceAnnotation:
    cites = tuple(Citation(f"[PMID:{i}]", str(i), 0, 1, valid) for i, valid in enumerate(citations))
    return SentenceAnnotation(
        index,
        f"sentence {index}",
        0,
        10,
        verdict,
        confidence,
        citations=cites,
        harm=harm,
        support=1.0 - risk,
        risk=risk,
        quotes=tuple(QuoteCheck("1", "quoted words", status) for status in quotes),
    )


def policy_with(*rules: str, extra: str = "", response: str = "") -> str:
    body = "name: t\nversion: 2\n" + extra + ("sentence_rules:\n" + "".join(rules) if rules else "")
    return body + (f"response_rules:\n{response}" if response else "")


def rule(name: str, when: str, action: str, message: str | None = None) -> str:
    text = f"  - name: {name}\n    when: {when}\n    action: {action}\n"
    return text + (f"    message: {message}\n" if message else "")


@pytest.mark.parametrize(
    ("when", "hit", "miss"),
    [
        ("{verdict: [contradicted, unsupported]}", sentence(Verdict.UNSUPPORTED), sentence()),
        ("{harm: {gte: 4}}", sentence(harm=4), sentence(harm=3)),
        ("{harm: {gt: 4}}", sentence(harm=5), sentence(harm=4)),
        ("{harm: {eq: 3}}", sentence(harm=3), sentence(harm=2)),
        ("{confidence: {lt: 0.5}}", sentence(confidence=0.4), sentence(confidence=0.5)),
        ("{confidence: {lte: 0.5}}", sentence(confidence=0.5), sentence(confidence=0.51)),
        ("{risk: {gt: 0.3}}", sentence(risk=0.31), sentence(risk=0.3)),
        ("{support: {lt: 0.7}}", sentence(risk=0.31), sentence(risk=0.3)),
        ("{citation_valid: false}", sentence(citations=(True, False)), sentence(citations=(True,))),
        ("{citation_valid: false}", sentence(citations=(False,)), sentence()),  # no citation
        ("{citation_valid: true}", sentence(citations=(True, True)), sentence()),
        # A list item cited by the line introducing its list: valid records only.
        (
            "{citation_valid: true}",
            dataclasses.replace(sentence(), lead_citations=("1",)),
            sentence(),
        ),
        (
            "{citation_valid: false}",
            sentence(citations=(False,)),
            dataclasses.replace(sentence(), lead_citations=("1",)),
        ),
        ("{misquote: true}", sentence(quotes=(QuoteStatus.MISQUOTE,)), sentence()),
        (
            "{misquote: true}",
            sentence(quotes=(QuoteStatus.FOUND, QuoteStatus.OTHER_ABSTRACT)),
            sentence(quotes=(QuoteStatus.FOUND,)),
        ),
        (
            "{misquote: false}",  # it quotes, and every quote was found
            sentence(quotes=(QuoteStatus.FOUND,)),
            sentence(),
        ),
        (
            "{verdict: [contradicted], harm: {gte: 4}}",  # every condition must hold
            sentence(Verdict.CONTRADICTED, harm=5),
            sentence(Verdict.CONTRADICTED, harm=3),
        ),
    ],
)
def test_each_sentence_condition(
    when: str, hit: SentenceAnnotation, miss: SentenceAnnotation
) -> None:
    policy = parse_policy(policy_with(rule("r", when, "flag")))
    assert decide_sentence(policy, hit).rules_fired == ("r",)
    assert decide_sentence(policy, hit).action is Action.FLAG
    assert decide_sentence(policy, miss).rules_fired == ()
    assert decide_sentence(policy, miss).action is Action.ANNOTATE


def test_strongest_action_wins_and_every_rule_is_recorded() -> None:
    policy = parse_policy(
        policy_with(
            rule("a", "{harm: {gte: 1}}", "annotate"),
            rule("b", "{harm: {gte: 2}}", "redact"),
            rule("c", "{harm: {gte: 3}}", "flag"),
            rule("d", "{harm: {gte: 5}}", "block", "Dangerous."),
            extra="messages: {redact: '[gone]'}\n",
        )
    )
    assert decide_sentence(policy, sentence(harm=1)).action is Action.ANNOTATE
    flagged = decide_sentence(policy, sentence(harm=3))
    assert flagged.action is Action.REDACT and flagged.rules_fired == ("a", "b", "c")
    assert flagged.message == "[gone]"  # the policy's redact text: the rule has none
    blocked = decide_sentence(policy, sentence(harm=5))
    assert (blocked.action, blocked.message) == (Action.BLOCK, "Dangerous.")
    assert blocked.rules_fired == ("a", "b", "c", "d")


@pytest.mark.parametrize(
    ("response", "facts", "fires"),
    [
        ("{risk: {gt: 0.5}}", {"risk": 0.6}, True),
        ("{risk: {gt: 0.5}}", {"risk": 0.5}, False),
        ("{support: {lt: 0.5}}", {"risk": 0.6}, True),
        ("{support: {lt: 0.5}}", {"risk": 0.5}, False),
        ("{contradicted: {gte: 2}}", {"verdicts": [Verdict.CONTRADICTED] * 2}, True),
        ("{contradicted: {gte: 2}}", {"verdicts": [Verdict.CONTRADICTED]}, False),
        ("{unsupported: {gte: 1}, risk: {gt: 0.1}}", {"verdicts": [Verdict.UNSUPPORTED]}, False),
        ("{invalid_citations: {gte: 1}}", {"citations": (False,)}, True),
        ("{sentences: {gt: 2}}", {"verdicts": [Verdict.SUPPORTED] * 3}, True),
        ("{misquotes: {gte: 1}}", {"quotes": (QuoteStatus.MISQUOTE,)}, True),
        ("{misquotes: {gte: 1}}", {"quotes": (QuoteStatus.FOUND,)}, False),
    ],
)
def test_response_conditions(response: str, facts: dict[str, object], fires: bool) -> None:
    policy = parse_policy(
        policy_with(response=f"  - name: resp\n    when: {response}\n    action: flag\n")
    )
    verdicts = facts.get("verdicts", [Verdict.SUPPORTED])
    assert isinstance(verdicts, list)
    sentences = [sentence(v, index=i) for i, v in enumerate(verdicts)]
    citations = facts.get("citations")
    if isinstance(citations, tuple):
        sentences = [dataclasses.replace(sentence(citations=citations), index=9)]
    quotes = facts.get("quotes")
    if isinstance(quotes, tuple):
        sentences = [sentence(quotes=quotes)]
    risk = facts.get("risk", 0.0)
    assert isinstance(risk, float)
    decision = decide_response(policy, sentences, support=1.0 - risk, risk=risk)
    assert (decision.rules_fired == ("resp",)) is fires
    assert decision.status is (ReportStatus.FLAGGED if fires else ReportStatus.VERIFIED)


def test_response_status_follows_the_strongest_action() -> None:
    policy = parse_policy(
        policy_with(
            rule("flag-it", "{verdict: [unsupported]}", "flag"),
            rule("redact-it", "{citation_valid: false}", "redact"),
            rule("block-it", "{verdict: [contradicted], harm: {gte: 4}}", "block"),
        )
    )
    ok = sentence()
    cases = {
        ReportStatus.VERIFIED: [ok],
        ReportStatus.FLAGGED: [ok, sentence(Verdict.UNSUPPORTED)],
        ReportStatus.REDACTED: [sentence(Verdict.UNSUPPORTED), sentence(citations=(False,))],
        ReportStatus.BLOCKED: [
            sentence(citations=(False,)),
            sentence(Verdict.CONTRADICTED, harm=5),
        ],
    }
    for status, sentences in cases.items():
        decision = decide_response(policy, sentences, support=1.0, risk=0.0)
        assert decision.status is status
        assert decision.enforced_status is status
    blocked = decide_response(policy, cases[ReportStatus.BLOCKED], support=0.1, risk=0.9)
    assert blocked.rules_fired == ("redact-it", "block-it")
    assert blocked.message == parse_policy("name: x").messages.block


def test_shadow_records_but_does_not_enforce() -> None:
    policy = parse_policy(
        policy_with(rule("b", "{harm: {gte: 5}}", "block"), extra="shadow: true\n")
    )
    one = decide_sentence(policy, sentence(harm=5))
    assert (one.action, one.enforced_action, one.shadow) == (Action.BLOCK, Action.ANNOTATE, True)
    whole = decide_response(policy, [sentence(harm=5)], support=0.0, risk=1.0)
    assert (whole.action, whole.status) == (Action.BLOCK, ReportStatus.BLOCKED)
    assert (whole.enforced_action, whole.enforced_status) == (
        Action.ANNOTATE,
        ReportStatus.VERIFIED,
    )
    failed = decide_response(policy, [], support=1.0, risk=0.0, error="timeout")
    assert failed.enforced_status is ReportStatus.UNVERIFIED  # shadow never hides a failure


@pytest.mark.parametrize(
    ("mode", "action", "status"),
    [
        ("open", Action.ANNOTATE, ReportStatus.UNVERIFIED),
        ("flag", Action.FLAG, ReportStatus.FLAGGED),
        ("closed", Action.BLOCK, ReportStatus.BLOCKED),
    ],
)
def test_on_verifier_error(mode: str, action: Action, status: ReportStatus) -> None:
    policy = parse_policy(
        f"name: t\non_verifier_error: {mode}\nmessages: {{verifier_error: 'Try later.'}}\n"
    )
    decision = decide_response(
        policy, [sentence()], support=1.0, risk=0.0, error="verifier timeout after 5 s"
    )
    assert (decision.action, decision.status) == (action, status)
    assert decision.verifier_failed
    assert decision.note is not None and "verifier timeout after 5 s" in decision.note
    assert f"on_verifier_error={mode}" in decision.note
    assert decision.status is not ReportStatus.VERIFIED
    if mode == "closed":
        assert decision.message == "Try later."
    if mode == "flag":
        assert "unverified" in decision.note


def test_error_keeps_a_stronger_rule_decision_when_failing_open() -> None:
    policy = parse_policy(
        policy_with(rule("b", "{harm: {gte: 5}}", "block"), extra="on_verifier_error: open\n")
    )
    decision = decide_response(
        policy, [sentence(harm=5)], support=0.0, risk=1.0, error="NLI backend down"
    )
    assert decision.status is ReportStatus.BLOCKED


def _report(
    *sentences: SentenceAnnotation, risk: float = 0.0, error: str | None = None
) -> ResponseReport:
    return ResponseReport(
        support=1.0 - risk,
        risk=risk,
        faithful=True,
        counts={},
        sentences=sentences,
        error=error,
    )


def test_clinical_strict_preset_on_a_report() -> None:
    policy = load_policy(PRESETS_DIR / "clinical-strict.yaml")
    report = _report(
        sentence(Verdict.SUPPORTED, harm=5, citations=(True,), index=0),
        sentence(Verdict.UNSUPPORTED, harm=5, risk=1.0, index=1),
        sentence(Verdict.CONTRADICTED, harm=4, risk=1.0, index=2),
        sentence(Verdict.UNCITED, harm=5, risk=0.0, index=3),  # uncited, but the evidence agrees
        sentence(Verdict.UNCITED, harm=5, risk=1.0, index=4),  # uncited and unsupported
        risk=0.7,
    )
    decision = decide_report(policy, report)
    assert decision.status is ReportStatus.BLOCKED
    assert decision.message is not None and "withheld" in decision.message
    assert "redact-unsupported-harm-5" in decision.rules_fired
    assert "flag-risk-above-0.2" in decision.rules_fired
    applied = apply_policy(policy, report)
    assert applied.status is ReportStatus.BLOCKED and applied.action is Action.BLOCK
    assert applied.policy == "clinical-strict" and not applied.shadow
    assert [s.action for s in applied.sentences] == [
        Action.ANNOTATE,
        Action.REDACT,
        Action.BLOCK,
        Action.ANNOTATE,
        Action.REDACT,
    ]
    assert applied.sentences[1].text == report.sentences[1].text  # the audit keeps the text
    # Both at once, each sentence decided once: the same report and decision.
    assert decide_and_apply(policy, report) == (applied, decision)
    failed = _report(*report.sentences, error="NLI backend down")
    assert decide_and_apply(policy, failed) == (
        apply_policy(policy, failed),
        decide_report(policy, failed),
    )


def test_decisions_made_as_the_answer_streamed_are_the_ones_applied() -> None:
    """A stream decides each sentence once, as it is verified; the response takes those
    decisions as they are instead of deciding again."""
    policy = load_policy(PRESETS_DIR / "clinical-strict.yaml")
    report = _report(
        sentence(Verdict.SUPPORTED, harm=2, citations=(True,), index=0),
        sentence(Verdict.CONTRADICTED, harm=4, risk=1.0, index=1),
    )
    decided = [decide_sentence(policy, s) for s in report.sentences]
    assert decide_and_apply(policy, report, decided) == decide_and_apply(policy, report)
    flagged = SentenceDecision(Action.FLAG, ("made-earlier",), None)
    applied, decision = decide_and_apply(policy, report, [decided[0], flagged])
    assert [s.action for s in applied.sentences] == [Action.ANNOTATE, Action.FLAG]
    assert applied.sentences[1].rules_fired == ("made-earlier",)
    assert decision.action is Action.FLAG and "made-earlier" in decision.rules_fired


def test_apply_policy_in_shadow_and_on_error() -> None:
    policy = load_policy(PRESETS_DIR / "audit-only.yaml")
    report = _report(sentence(Verdict.CONTRADICTED, harm=5), risk=1.0)
    applied = apply_policy(policy, report)
    assert applied.shadow and applied.action is Action.BLOCK
    assert applied.status is ReportStatus.VERIFIED  # recorded, not enforced
    failed = apply_policy(policy, _report(error="timeout"))
    assert failed.status is ReportStatus.UNVERIFIED
    assert failed.error is not None and "on_verifier_error=closed" in failed.error


@pytest.mark.parametrize("where", ["sentence_rules", "response_rules"])
def test_a_version_1_risk_condition_is_refused_naming_the_change(where: str) -> None:
    old = f"name: t\n{where}:\n  - name: r\n    when: {{risk: {{lt: 0.5}}}}\n    action: flag\n"
    with pytest.raises(PolicyFileError) as raised:
        parse_policy(old)
    message = str(raised.value)
    assert f"{where}[0].when.risk" in message and "'risk' changed meaning" in message
    assert "now 'support'" in message and "version: 2" in message
    # The old test, written as version 2 asks, loads; so does a version-1 file without risk.
    assert parse_policy(old.replace("risk:", "support:").replace("name: t", "name: t\nversion: 2"))
    assert parse_policy(
        "name: t\nsentence_rules:\n  - {name: r, when: {harm: {gte: 4}}, action: flag}\n"
    )
