"""The cascade: the bundled model decides every claim; the claims an escalation rule picks go to
an LLM judge, all of a response's in one request, and its verdict stands only with a quote
found in the evidence it cites (and, for ``supported``, one the bundled model reads as bearing on
the claim).

``Cascade`` holds what is shared (the judge client, the window selector, the budget, the cache,
the observer, the NLI model that checks a quote's relevance); ``Cascade.run`` gives one response
its ``EscalationRun``, which may be called more than once (gate mode escalates each batch of
sentences as it completes) and keeps count for ``max_claims`` and the report's
``EscalationSummary``.

What the judge cannot change: a sentence is never called ``supported`` on the judge's word
unless its quote is a normalised substring of the window or abstract it cites, and the bundled
NLI model, given the quote as premise and the claim as hypothesis, finds it entailing or at least
relevant (1 - P(neutral) at its own relevance threshold): a real sentence of the evidence that is
about something else does not carry a claim. Nor does one that says the opposite: the direction,
negation and numbers checks run between the claim and the quote
(:mod:`verifiers.judge.quote_direction`), and a flip keeps the bundled verdict
(``quote_contradicts``). A judge that is down, slow or malformed leaves the
bundled verdicts standing, marked ``judge_error``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import anyio
import anyio.to_thread

from verifiers._types import (
    Claim,
    EscalationOutcome,
    EscalationSummary,
    Evidence,
    EvidenceSpan,
    JudgeNote,
    NLILabel,
    SentenceAnnotation,
    Verdict,
)
from verifiers.checks.quotes import quote_source
from verifiers.engine import with_claims
from verifiers.judge.client import JudgeClient, JudgeFailure
from verifiers.judge.prompt import (
    CHARS_PER_TOKEN,
    RESPONSE_SCHEMA,
    SYSTEM,
    JudgeAnswer,
    JudgeRequest,
    MalformedReply,
    build_request,
    parse_reply,
)
from verifiers.judge.quote_direction import quote_contradiction
from verifiers.judge.settings import EscalationSettings
from verifiers.nli import NLIBackend, NLIError, NLIPair, NLIScores, Thresholds
from verifiers.risk import support_of
from verifiers.windows import Window, WindowSelector

logger = logging.getLogger("veriproxy.judge")

_LABEL_OF: dict[Verdict, NLILabel] = {
    Verdict.SUPPORTED: NLILabel.ENTAILMENT,
    Verdict.CONTRADICTED: NLILabel.CONTRADICTION,
    Verdict.UNSUPPORTED: NLILabel.NEUTRAL,
}
_NEEDS_QUOTE = (Verdict.SUPPORTED, Verdict.CONTRADICTED)
# Rulings the cache keeps: what the judge said, checked (a failure is asked again next time).
_FINAL = (
    EscalationOutcome.JUDGED,
    EscalationOutcome.QUOTE_REJECTED,
    EscalationOutcome.QUOTE_IRRELEVANT,
)
_REPLY_TOKENS_PER_CLAIM = 80  # what a budget check expects the reply to cost


class JudgeObserver(Protocol):
    """Where the cascade reports what it does (the proxy's Prometheus metrics)."""

    def on_escalated(self, rule: str) -> None: ...

    def on_skipped(self, reason: str) -> None: ...

    def on_request(self, outcome: str, seconds: float, prompt: int, completion: int) -> None: ...

    def on_verdict(self, outcome: str) -> None: ...


class JudgeBudget(Protocol):
    """Judge tokens per tenant and minute (Redis when configured, so replicas share it)."""

    async def allows(self, tenant: str, tokens: int) -> bool: ...

    async def spend(self, tenant: str, tokens: int) -> None: ...


class JudgeCache(Protocol):
    """Checked judge rulings by (judge, claim, windows) hash: the proxy's shared cache."""

    async def get(self, key: str) -> bytes | None: ...

    async def set(self, key: str, value: bytes, ttl: float) -> None: ...


class _Silent:
    def on_escalated(self, rule: str) -> None:
        pass

    def on_skipped(self, reason: str) -> None:
        pass

    def on_request(self, outcome: str, seconds: float, prompt: int, completion: int) -> None:
        pass

    def on_verdict(self, outcome: str) -> None:
        pass


@dataclass(frozen=True, slots=True)
class _Candidate:
    sentence: int  # position in the batch
    claim: int  # position in the sentence's claims
    rule: str
    text: str
    windows: tuple[Window, ...] = ()
    key: str = ""


@dataclass(frozen=True, slots=True)
class _Ruling:
    """The checked outcome for one claim (what the cache keeps)."""

    outcome: EscalationOutcome
    verdict: Verdict | None = None
    quote: str = ""
    pmids: tuple[str, ...] = ()
    windows: tuple[int, ...] = ()  # positions in the candidate's windows that it cited
    reason: str = ""
    cached: bool = False

    def to_bytes(self) -> bytes:
        body = {
            "outcome": self.outcome.value,
            "verdict": self.verdict.value if self.verdict else None,
            "quote": self.quote,
            "pmids": list(self.pmids),
            "windows": list(self.windows),
            "reason": self.reason,
        }
        return json.dumps(body).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> _Ruling:
        body = json.loads(raw)
        verdict = body["verdict"]
        return cls(
            EscalationOutcome(body["outcome"]),
            Verdict(verdict) if verdict else None,
            body["quote"],
            tuple(body["pmids"]),
            tuple(body["windows"]),
            body["reason"],
            cached=True,
        )


class Cascade:
    def __init__(
        self,
        settings: EscalationSettings,
        client: JudgeClient,
        selector: WindowSelector,
        *,
        nli: NLIBackend,
        budget: JudgeBudget | None = None,
        cache: JudgeCache | None = None,
        observer: JudgeObserver | None = None,
    ) -> None:
        self.settings = settings
        self.client = client
        self.selector = selector
        self.nli = nli
        # A quote bears on its claim where the model would count it a relevant window.
        thresholds = getattr(nli, "thresholds", None)
        self.min_relevance = (
            thresholds.relevance if isinstance(thresholds, Thresholds) else Thresholds().relevance
        )
        self.budget = budget
        self.cache = cache
        self.observer: JudgeObserver = observer or _Silent()

    @property
    def decided_by(self) -> str:
        return f"judge:{self.client.model}"

    def run(self, evidence: Sequence[Evidence], tenant: str = "") -> EscalationRun:
        return EscalationRun(self, tuple(evidence), tenant)


class EscalationRun:
    """One response's escalations."""

    def __init__(self, cascade: Cascade, evidence: tuple[Evidence, ...], tenant: str) -> None:
        self._cascade = cascade
        self._settings = cascade.settings
        self._evidence = evidence
        self._tenant = tenant
        self._summary = EscalationSummary(judge=cascade.client.model)

    def summary(self) -> EscalationSummary:
        return self._summary

    def wants(self, sentence: SentenceAnnotation) -> bool:
        """Whether an escalation rule picks one of the sentence's claims not yet escalated."""
        return any(
            c.escalation is None and self._settings.rule_for(c) is not None for c in sentence.claims
        )

    async def escalate(self, sentences: Sequence[SentenceAnnotation]) -> list[SentenceAnnotation]:
        """``sentences`` with the judge's verdicts where they stand, and every escalated claim
        marked with what became of it."""
        candidates = self._candidates(sentences)
        if not candidates:
            return list(sentences)
        room = max(self._settings.max_claims - self._summary.escalated, 0)
        sent, over = candidates[:room], candidates[room:]
        rulings: dict[tuple[int, int], _Ruling] = {
            (c.sentence, c.claim): _Ruling(EscalationOutcome.MAX_CLAIMS, reason="max_claims")
            for c in over
        }
        self._skip("max_claims", len(over))
        sent = self._with_windows(sentences, sent)
        rulings.update(await self._rule(sent))
        return self._apply(sentences, [*sent, *over], rulings)

    # -- choosing -------------------------------------------------------------------------

    def _candidates(self, sentences: Sequence[SentenceAnnotation]) -> list[_Candidate]:
        found = []
        for i, sentence in enumerate(sentences):
            for j, claim in enumerate(sentence.claims):
                if claim.escalation is not None:
                    continue  # escalated once already (a sentence fed twice)
                rule = self._settings.rule_for(claim)
                if rule is not None:
                    found.append(_Candidate(i, j, rule.name, claim.text))
        # The claims that matter most first: expected harm of a wrong verdict, the calibrated
        # probability that it is wrong times the claim's harm (ties: the higher harm).
        found.sort(key=lambda c: _priority(sentences[c.sentence].claims[c.claim]))
        return found

    def _with_windows(
        self, sentences: Sequence[SentenceAnnotation], candidates: Sequence[_Candidate]
    ) -> list[_Candidate]:
        if not candidates:
            return []
        by_pmid = {ev.pmid: ev for ev in self._evidence}
        groups = []
        for c in candidates:
            sentence = sentences[c.sentence]
            pmids = [x.pmid for x in sentence.citations] or list(sentence.lead_citations)
            cited = [by_pmid[pmid] for pmid in pmids if pmid in by_pmid]
            groups.append(tuple(dict.fromkeys(cited)) or self._evidence)
        chosen = self._cascade.selector.select([c.text for c in candidates], groups)
        per_claim = self._settings.windows_per_claim
        out = []
        for c, windows in zip(candidates, chosen, strict=True):
            top = tuple(windows[:per_claim])
            out.append(replace(c, windows=top, key=self._cache_key(c.text, top)))
        return out

    def _cache_key(self, claim: str, windows: Sequence[Window]) -> str:
        # The instructions and the model that checked the quote are part of the key: a changed
        # prompt or relevance model never reads an old ruling.
        digest = hashlib.sha256(SYSTEM.encode())
        cascade = self._cascade
        for part in (
            cascade.client.model,
            cascade.nli.version,
            claim,
            *(f"{w.pmid}:{w.text}" for w in windows),
        ):
            digest.update(part.encode())
            digest.update(b"\x00")
        return "judge:" + digest.hexdigest()

    # -- judging --------------------------------------------------------------------------

    async def _rule(self, candidates: Sequence[_Candidate]) -> dict[tuple[int, int], _Ruling]:
        rulings: dict[tuple[int, int], _Ruling] = {}
        missing: list[_Candidate] = []
        cache = self._cascade.cache
        for c in candidates:
            raw = await cache.get(c.key) if cache is not None else None  # counts itself
            if raw is None:
                missing.append(c)
            else:
                rulings[(c.sentence, c.claim)] = _Ruling.from_bytes(raw)
                self._count(escalated=1, cached=1)
                self._cascade.observer.on_escalated(c.rule)
        if not missing:
            return rulings
        request = build_request(
            [(c.text, c.windows) for c in missing], self._evidence, self._settings.context_tokens
        )
        user = request.user_message()
        budget = self._cascade.budget
        expected = (len(SYSTEM) + len(user)) // CHARS_PER_TOKEN + _REPLY_TOKENS_PER_CLAIM * len(
            missing
        )
        if budget is not None and not await budget.allows(self._tenant, expected):
            self._skip("budget", len(missing))
            for c in missing:
                rulings[(c.sentence, c.claim)] = _Ruling(EscalationOutcome.BUDGET, reason="budget")
            return rulings
        for c in missing:
            self._cascade.observer.on_escalated(c.rule)
        self._count(escalated=len(missing), requests=1)
        answers = await self._ask(request, user)
        for number, c in enumerate(missing, start=1):
            key = (c.sentence, c.claim)
            if isinstance(answers, str):
                rulings[key] = _Ruling(EscalationOutcome.JUDGE_ERROR, reason=answers)
                continue
            answer = answers.get(number)
            if answer is None:
                rulings[key] = _Ruling(
                    EscalationOutcome.JUDGE_ERROR, reason="the judge gave no verdict for it"
                )
                continue
            rulings[key] = _check(answer, request, number)
        checked = await self._bearing(missing, rulings)
        for c in missing:
            ruling = checked[(c.sentence, c.claim)]
            if cache is not None and ruling.outcome in _FINAL:
                await cache.set(c.key, ruling.to_bytes(), self._settings.cache_ttl_seconds)
        return checked

    async def _bearing(
        self, candidates: Sequence[_Candidate], rulings: dict[tuple[int, int], _Ruling]
    ) -> dict[tuple[int, int], _Ruling]:
        """``rulings`` where every ``supported`` one whose quote does not bear on its claim (the
        bundled model: neither entailing nor relevant) is ``quote_irrelevant`` instead."""
        asked = [
            (c, rulings[(c.sentence, c.claim)])
            for c in candidates
            if rulings[(c.sentence, c.claim)].outcome is EscalationOutcome.JUDGED
            and rulings[(c.sentence, c.claim)].verdict is Verdict.SUPPORTED
        ]
        if not asked:
            return rulings
        pairs = [NLIPair(ruling.quote, c.text) for c, ruling in asked]
        try:
            scores = await anyio.to_thread.run_sync(self._cascade.nli.predict, pairs)
        except NLIError as exc:
            # Unchecked is not checked: the bundled verdict stands (and nothing is cached).
            logger.warning("quote relevance check failed; bundled verdicts stand: %s", exc)
            failed = _Ruling(
                EscalationOutcome.JUDGE_ERROR,
                reason=f"the quote's relevance could not be checked ({type(exc).__name__})",
            )
            return rulings | {(c.sentence, c.claim): failed for c, _ in asked}
        out = dict(rulings)
        for (c, ruling), score in zip(asked, scores, strict=True):
            if not _bears_on(score, self._cascade.min_relevance):
                out[(c.sentence, c.claim)] = replace(
                    ruling,
                    outcome=EscalationOutcome.QUOTE_IRRELEVANT,
                    windows=(),
                    reason=(
                        "judge verdict rejected: its quote does not bear on the claim "
                        f"(relevance {1.0 - score.neutral:.2f})"
                    ),
                )
        return out

    async def _ask(self, request: JudgeRequest, user: str) -> dict[int, JudgeAnswer] | str:
        """The judge's answers by claim number, or why there are none."""
        observer = self._cascade.observer
        started = time.perf_counter()
        outcome, prompt, completion = "ok", 0, 0
        try:
            with anyio.fail_after(self._settings.timeout_seconds):
                reply = await self._cascade.client.ask(SYSTEM, user, RESPONSE_SCHEMA)
            prompt, completion = reply.prompt_tokens, reply.completion_tokens
            return parse_reply(reply.content)
        except TimeoutError:
            outcome = "timeout"
            return self._failed(f"judge timed out after {self._settings.timeout_seconds:g}s")
        except JudgeFailure as exc:
            outcome = "unreachable"
            return self._failed(str(exc))
        except MalformedReply as exc:
            outcome = "malformed"
            return self._failed(str(exc))
        finally:
            seconds = time.perf_counter() - started
            observer.on_request(outcome, seconds, prompt, completion)
            self._count(
                prompt_tokens=prompt, completion_tokens=completion, latency_ms=seconds * 1e3
            )
            if self._cascade.budget is not None and prompt + completion:
                await self._cascade.budget.spend(self._tenant, prompt + completion)

    def _failed(self, error: str) -> str:
        logger.warning("LLM judge failed; bundled verdicts stand: %s", error)
        self._summary = replace(self._summary, judge_error=error)
        return error

    # -- applying -------------------------------------------------------------------------

    def _apply(
        self,
        sentences: Sequence[SentenceAnnotation],
        candidates: Sequence[_Candidate],
        rulings: dict[tuple[int, int], _Ruling],
    ) -> list[SentenceAnnotation]:
        windows = {(c.sentence, c.claim): c.windows for c in candidates}
        rules = {(c.sentence, c.claim): c.rule for c in candidates}
        out = list(sentences)
        touched = sorted({c.sentence for c in candidates})
        for i in touched:
            sentence = sentences[i]
            claims = list(sentence.claims)
            for j, claim in enumerate(claims):
                ruling = rulings.get((i, j))
                if ruling is not None:
                    claims[j] = self._ruled(claim, ruling, rules[(i, j)], windows[(i, j)])
            restated = with_claims(sentence, tuple(claims))
            sent = any(
                c.escalation is not None
                and c.escalation.outcome
                not in (EscalationOutcome.BUDGET, EscalationOutcome.MAX_CLAIMS)
                for c in claims
            )
            judged = any(c.decided_by == self._cascade.decided_by for c in claims)
            out[i] = replace(
                restated,
                decided_by=self._cascade.decided_by if judged else sentence.decided_by,
                bundled_verdict=sentence.verdict if sent else None,
            )
        return out

    def _ruled(self, claim: Claim, ruling: _Ruling, rule: str, windows: Sequence[Window]) -> Claim:
        note = JudgeNote(
            outcome=ruling.outcome,
            rule=rule,
            judge=self._cascade.client.model,
            bundled_verdict=claim.verdict,
            verdict=ruling.verdict,
            quote=ruling.quote,
            evidence=ruling.pmids,
            reason=ruling.reason,
            cached=ruling.cached,
        )
        note = self._held_back(claim, ruling, note)
        if note.outcome is not EscalationOutcome.JUDGED or ruling.verdict is None:
            return replace(claim, escalation=note)
        overturned = ruling.verdict is not claim.verdict
        self._cascade.observer.on_verdict("overturn" if overturned else "agree")
        self._count(judged=1, overturned=int(overturned))
        spans = tuple(_span(windows[k], ruling.verdict) for k in ruling.windows)
        return replace(
            claim,
            verdict=ruling.verdict,
            support=support_of(ruling.verdict) or 0.0,
            evidence=spans or claim.evidence,
            decided_by=self._cascade.decided_by,
            escalation=note,
            needs_review=False,  # the judge decided it, quoting its evidence
        )

    def _held_back(self, claim: Claim, ruling: _Ruling, note: JudgeNote) -> JudgeNote:
        """``note`` with the outcome that keeps the judge's verdict out, counted (the outcome
        names the summary's count and the observer's label), or as it is when none does. For a
        ``supported`` verdict, a failed check on the claim says most (it is what the claim
        reports), then a quote that contradicts the claim, then one beside it."""
        supported = ruling.verdict is Verdict.SUPPORTED and ruling.outcome in (
            EscalationOutcome.JUDGED,
            EscalationOutcome.QUOTE_IRRELEVANT,
        )
        reason = note.reason
        if supported and any(not check.passed for check in claim.checks):
            outcome = EscalationOutcome.CHECK_FAILED
        elif supported and (flip := quote_contradiction(claim.text, ruling.quote)) is not None:
            outcome = EscalationOutcome.QUOTE_CONTRADICTS
            reason = f"judge verdict rejected: its quote contradicts the claim ({flip.detail})"
        elif ruling.outcome in (
            EscalationOutcome.QUOTE_REJECTED,
            EscalationOutcome.QUOTE_IRRELEVANT,
        ):
            outcome = ruling.outcome
        else:
            return note
        self._cascade.observer.on_verdict(outcome.value)
        self._count(**{outcome.value: 1})
        return replace(note, outcome=outcome, reason=reason)

    # -- counting -------------------------------------------------------------------------

    def _skip(self, reason: str, count: int) -> None:
        if count <= 0:
            return
        for _ in range(count):
            self._cascade.observer.on_skipped(reason)
        skipped = dict(self._summary.escalation_skipped)
        skipped[reason] = skipped.get(reason, 0) + count
        self._summary = replace(self._summary, escalation_skipped=skipped)

    def _count(self, **added: float) -> None:
        s = self._summary
        self._summary = replace(
            s, **{name: getattr(s, name) + value for name, value in added.items()}
        )


def _priority(claim: Claim) -> tuple[float, int]:
    """Sort key: the claim with the most expected harm from a wrong verdict first."""
    return (-(1.0 - claim.confidence) * claim.harm, -claim.harm)


def _check(answer: JudgeAnswer, request: JudgeRequest, number: int) -> _Ruling:
    """The judge's answer, accepted only when the quote is in evidence it cites (an
    ``unsupported`` verdict needs none: the evidence not saying something has no quote)."""
    sources = request.sources()
    cited = [sources[i] for i in answer.evidence if i in sources]
    claim_windows = request.claims[number - 1].windows
    positions = tuple(k for k, w in enumerate(claim_windows) if w in cited)
    pmids = tuple(dict.fromkeys(s.pmid for s in cited))
    if answer.verdict in _NEEDS_QUOTE:
        found = quote_source(answer.quote, [(s.id, s.text) for s in cited])
        if found is None:
            why = "its quote is not in the evidence it cites" if cited else "it cites no evidence"
            return _Ruling(
                EscalationOutcome.QUOTE_REJECTED,
                answer.verdict,
                answer.quote,
                pmids,
                reason=f"judge verdict rejected: {why}",
            )
        positions = tuple(k for k in positions if claim_windows[k].id == found) or positions
    return _Ruling(
        EscalationOutcome.JUDGED,
        answer.verdict,
        answer.quote,
        pmids,
        positions,
        answer.reason,
    )


def _bears_on(scores: NLIScores, min_relevance: float) -> bool:
    """Whether a quote (premise) bears on its claim (hypothesis): it entails the claim, or is
    at least relevant to it. The direction is the judge's to say: on a short quote the bundled
    model often calls a restatement of the claim a contradiction, but rarely neutral."""
    return scores.label is NLILabel.ENTAILMENT or 1.0 - scores.neutral >= min_relevance


def _span(window: Window, verdict: Verdict) -> EvidenceSpan:
    """A window the judge cited, as the claim's deciding span. The judge gives no probability:
    the score is 1.0 and ``decided_by`` says whose verdict it is."""
    return EvidenceSpan(
        window.pmid, window.title, window.text, window.start, window.end, _LABEL_OF[verdict], 1.0
    )
