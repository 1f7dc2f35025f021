"""Pure decisions: what a policy does to one sentence and to a whole response.

Gate mode calls ``decide_sentence`` for each sentence as soon as it is verified and releases it
only if the enforced action is below ``redact``; ``decide_response`` then gives the response's
action and status. Every rule is evaluated (so the report lists all that fired); the strongest
action wins (``annotate < flag < redact < block``). With ``shadow: true`` decisions are computed
and recorded in full, but the enforced action is always ``annotate``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from policies._decided import Action, DecidedReport, DecidedSentence, ReportStatus
from policies._model import (
    OnVerifierError,
    Policy,
    ResponseWhen,
    SentenceWhen,
)
from verifiers import (
    QuoteStatus,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
)

_STATUS = {
    Action.ANNOTATE: ReportStatus.VERIFIED,
    Action.FLAG: ReportStatus.FLAGGED,
    Action.REDACT: ReportStatus.REDACTED,
    Action.BLOCK: ReportStatus.BLOCKED,
}


@dataclass(frozen=True, slots=True)
class SentenceDecision:
    """The policy's decision for one sentence. ``message`` is the replacement text for a redact
    (or the block message), or the firing rule's own message for weaker actions."""

    action: Action
    rules_fired: tuple[str, ...]
    message: str | None
    shadow: bool = False

    @property
    def enforced_action(self) -> Action:
        return Action.ANNOTATE if self.shadow else self.action


@dataclass(frozen=True, slots=True)
class ResponseDecision:
    """The policy's decision for a whole response.

    ``action``/``status`` are what the policy decided; ``enforced_action``/``enforced_status``
    what the proxy must do (the same unless ``shadow``). ``note`` says what happened when the
    verifier failed or timed out; ``message`` is the text to show for a block or an error.
    """

    action: Action
    status: ReportStatus
    rules_fired: tuple[str, ...]
    message: str | None
    shadow: bool
    note: str | None = None
    verifier_failed: bool = False
    needs_review: bool = False  # some sentence needs review

    @property
    def enforced_action(self) -> Action:
        return Action.ANNOTATE if self.shadow else self.action

    @property
    def enforced_status(self) -> ReportStatus:
        if not self.shadow:
            return self.status
        if self.verifier_failed:
            return ReportStatus.UNVERIFIED
        return ReportStatus.NEEDS_REVIEW if self.needs_review else ReportStatus.VERIFIED


def decide_sentence(policy: Policy, sentence: SentenceAnnotation) -> SentenceDecision:
    """Apply the policy's sentence rules to one verified sentence."""
    fired = [r for r in policy.sentence_rules if sentence_matches(r.when, sentence)]
    if not fired:
        return SentenceDecision(Action.ANNOTATE, (), None, policy.shadow)
    action = max((r.action for r in fired), key=lambda a: a.rank)
    own = next(r.message for r in fired if r.action is action)
    return SentenceDecision(
        action, tuple(r.name for r in fired), own or _default_message(policy, action), policy.shadow
    )


def decide_response(
    policy: Policy,
    sentences: Sequence[SentenceAnnotation],
    *,
    support: float,
    risk: float,
    counts: Mapping[str, int] | None = None,
    error: str | None = None,
) -> ResponseDecision:
    """Combine the sentence decisions with the response rules; ``error`` (verifier failure or
    timeout) is handled as the policy's ``on_verifier_error`` says, never as "verified"."""
    decisions = [decide_sentence(policy, s) for s in sentences]
    return _combine(policy, sentences, decisions, _Scores(support, risk), counts, error)


@dataclass(frozen=True, slots=True)
class _Scores:
    """A response's harm-weighted support and risk (protocol 2.0: one meaning each)."""

    support: float
    risk: float


def _combine(
    policy: Policy,
    sentences: Sequence[SentenceAnnotation],
    decisions: Sequence[SentenceDecision],
    scores: _Scores,
    counts: Mapping[str, int] | None,
    error: str | None,
) -> ResponseDecision:
    facts = _response_facts(sentences, scores, counts)
    fired_rules = [r for r in policy.response_rules if response_matches(r.when, facts)]
    actions = [d.action for d in decisions] + [r.action for r in fired_rules]
    action = max(actions, key=lambda a: a.rank, default=Action.ANNOTATE)
    sentence_names = (n for d in decisions for n in d.rules_fired)
    names = _unique([*sentence_names, *(r.name for r in fired_rules)])
    own = next((r.message for r in fired_rules if r.action is action and r.message), None)
    message = own or _default_message(policy, action)
    review = any(s.needs_review for s in sentences)
    # Nothing fired, but a verdict the verifier cannot vouch for is no "verified" answer.
    status = ReportStatus.NEEDS_REVIEW if review and action is Action.ANNOTATE else _STATUS[action]
    decision = ResponseDecision(action, status, names, message, policy.shadow, needs_review=review)
    return decision if error is None else _on_error(policy, decision, error)


def decide_report(policy: Policy, report: ResponseReport) -> ResponseDecision:
    """``decide_response`` on a finished (e.g. recorded) report."""
    return decide_response(
        policy,
        report.sentences,
        support=report.support,
        risk=report.risk,
        counts=report.counts,
        error=report.error,
    )


def apply_policy(policy: Policy, report: ResponseReport) -> DecidedReport:
    """The report with the policy's decisions recorded: each sentence's action and rules, and
    the response's action, enforced status, rules, policy name and shadow flag. Sentence text is
    left as verified (the audit log needs it); the proxy redacts what the client sees."""
    return decide_and_apply(policy, report)[0]


def skipped(policy: Policy, report: ResponseReport) -> DecidedReport:
    """The report of an answer whose caller skipped verification, as the policy allowed:
    ``unverified`` (the report's ``error`` says why), nothing decided."""
    return DecidedReport.of(
        report,
        (),
        status=ReportStatus.UNVERIFIED,
        action=Action.ANNOTATE,
        rules_fired=(),
        policy=policy.name,
        shadow=policy.shadow,
    )


def decide_and_apply(
    policy: Policy,
    report: ResponseReport,
    decided: Sequence[SentenceDecision] | None = None,
) -> tuple[DecidedReport, ResponseDecision]:
    """``apply_policy`` and ``decide_report`` at once, each sentence decided once (the proxy
    needs both for every answer). ``decided``: each sentence's decision, when the caller made
    them already (in the order of ``report.sentences``): a stream decides each sentence as it
    is verified, and that decision is the one the response carries."""
    if decided is None:
        decisions = [decide_sentence(policy, s) for s in report.sentences]
    else:
        decisions = list(decided)
    scores = _Scores(report.support, report.risk)
    decision = _combine(policy, report.sentences, decisions, scores, report.counts, report.error)
    sentences = tuple(
        record_decision(s, d) for s, d in zip(report.sentences, decisions, strict=True)
    )
    applied = DecidedReport.of(
        report,
        sentences,
        status=decision.enforced_status,
        action=decision.action,
        rules_fired=decision.rules_fired,
        policy=policy.name,
        shadow=policy.shadow,
    )
    if decision.note is not None:
        applied = dataclasses.replace(applied, error=decision.note)
    return applied, decision


def record_decision(sentence: SentenceAnnotation, decision: SentenceDecision) -> DecidedSentence:
    """The sentence with the policy's decision recorded on it (its action and the rules that
    fired); its text stays as verified. The one place a sentence gets them."""
    return DecidedSentence.of(sentence, decision.action, decision.rules_fired)


def sentence_matches(when: SentenceWhen, sentence: SentenceAnnotation) -> bool:
    """True when every condition given in ``when`` holds for the sentence."""
    if when.verdict is not None and sentence.verdict not in when.verdict:
        return False
    if when.harm is not None and not when.harm.test(sentence.harm):
        return False
    if when.confidence is not None and not when.confidence.test(sentence.confidence):
        return False
    if when.support is not None and not when.support.test(sentence.support):
        return False
    if when.risk is not None and not when.risk.test(sentence.risk):
        return False
    if when.needs_review is not None and sentence.needs_review is not when.needs_review:
        return False
    if when.misquote is not None and (
        not sentence.quotes or misquoted(sentence) is not when.misquote
    ):
        return False
    if when.citation_valid is not None:
        if sentence.citations:
            all_valid = all(c.valid for c in sentence.citations)
        elif sentence.lead_citations:
            all_valid = True  # a list or paragraph lends a sentence only the valid records it cites
        else:
            return False
        if all_valid is not when.citation_valid:
            return False
    return True


def misquoted(sentence: SentenceAnnotation) -> bool:
    """One of the sentence's quoted citations quotes words not in the abstract it cites."""
    return any(q.status is not QuoteStatus.FOUND for q in sentence.quotes)


def response_matches(when: ResponseWhen, facts: Mapping[str, float]) -> bool:
    """True when every bound given in ``when`` holds for the response's facts."""
    for condition in dataclasses.fields(when):
        bounds = getattr(when, condition.name)
        if bounds is not None and not bounds.test(facts[condition.name]):
            return False
    return True


def _response_facts(
    sentences: Sequence[SentenceAnnotation], scores: _Scores, counts: Mapping[str, int] | None
) -> dict[str, float]:
    by_verdict = Counter(s.verdict.value for s in sentences) if counts is None else counts
    facts: dict[str, float] = {v.value: float(by_verdict.get(v.value, 0)) for v in Verdict}
    facts["support"] = scores.support
    facts["risk"] = scores.risk
    facts["sentences"] = float(len(sentences))
    facts["needs_review"] = float(sum(s.needs_review for s in sentences))
    facts["misquotes"] = float(sum(misquoted(s) for s in sentences))
    facts["invalid_citations"] = float(sum(not c.valid for s in sentences for c in s.citations))
    return facts


def _on_error(policy: Policy, decision: ResponseDecision, error: str) -> ResponseDecision:
    mode = policy.on_verifier_error
    note = f"verification failed ({error}); on_verifier_error={mode.value}"
    failed = dataclasses.replace(decision, note=note, verifier_failed=True)
    if mode is OnVerifierError.CLOSED:
        message = policy.messages.verifier_error
        return dataclasses.replace(
            failed, action=Action.BLOCK, status=ReportStatus.BLOCKED, message=message
        )
    if decision.action.rank >= Action.REDACT.rank:
        return failed  # the rules already withhold content; keep their decision
    if mode is OnVerifierError.FLAG:
        note = f"{note}; the answer is unverified"
        return dataclasses.replace(
            failed, action=Action.FLAG, status=ReportStatus.FLAGGED, note=note
        )
    return dataclasses.replace(failed, status=ReportStatus.UNVERIFIED)


def _default_message(policy: Policy, action: Action) -> str | None:
    if action is Action.BLOCK:
        return policy.messages.block
    if action is Action.REDACT:
        return policy.messages.redact
    return None


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
