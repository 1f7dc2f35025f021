"""Answers verified without and with quoted citations, side by side (``veriproxy eval answers
--quotes``).

Each item is verified as :mod:`verifiers.eval.answers` verifies it (plain ``[PMID:123]``
citations), then in its quoted variant (:mod:`verifiers.eval.quoted`) with the same
distortions (the same seed draws the same sentences and changes), each now under a correct
quote, and once per misquote kind. Figures per rendering: everything ``eval answers`` reports,
the NLI pairs per check-worthy sentence (counted by :class:`~verifiers.eval.pairs.CountingNLI`
around the verifier's backend) and, with quotes, the misquotes caught (reported ``misquote`` or
``other_abstract`` on a sentence not called ``supported``), the correct quotes the check called
anything but ``found`` (must be none) and which premise judged the sentences.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from verifiers._types import Evidence, QuoteStatus, ResponseReport, SentenceAnnotation, Verdict
from verifiers.checks.normalise import normalise
from verifiers.eval.answers import (
    AnswerItem,
    AnswerMetrics,
    MissHook,
    item_rng,
    score_item,
    score_off_topic,
    sentences_in,
)
from verifiers.eval.off_topic import OffTopicSentence
from verifiers.eval.pairs import CountingNLI
from verifiers.eval.quoted import MISQUOTES, QuotedItem, misquotes, quote_item

Verify = Callable[[str, Sequence[Evidence]], ResponseReport]
MISQUOTED = frozenset({QuoteStatus.MISQUOTE, QuoteStatus.OTHER_ABSTRACT})
EXAMPLES = 5  # missed sentences kept per kind, for whoever fixes the engine


@dataclass(slots=True)
class Usage:
    """What the verifier did over one rendering's calls (every sentence of every answer
    verified, perturbed answers included)."""

    sentences: int = 0  # check-worthy sentences verified
    pairs: int = 0  # NLI pairs scored for them
    quote_checked: int = 0  # of the sentences, those with a quote check
    # What judged the sentences whose quotes are all right (or that have none): quote |
    # windows | none (no model judged it).
    premise: Counter[str] = field(default_factory=Counter)
    correct_quotes: int = 0  # checks of a quote known to be right
    called_misquote: int = 0  # of those, reported anything but found

    def as_dict(self) -> dict[str, object]:
        n = max(self.sentences, 1)
        return {
            "sentences_verified": self.sentences,
            "nli_pairs": self.pairs,
            "nli_pairs_per_sentence": round(self.pairs / n, 3),
            "quote_checked_rate": round(self.quote_checked / n, 4),
            "premise": dict(self.premise.most_common()),
            "correct_quotes_checked": self.correct_quotes,
            "correct_quotes_called_misquote": self.called_misquote,
        }


@dataclass(slots=True)
class MisquoteMetrics:
    """Per misquote kind: the sentences made, those whose quote the check reported (status
    ``misquote`` or ``other_abstract``) and those caught: reported, and no sentence holding
    the misquote called ``supported`` (check-worthy or not: the quote check reads every
    cited sentence, and a reader meets the flag either way)."""

    made: Counter[str] = field(default_factory=Counter)
    reported: Counter[str] = field(default_factory=Counter)
    caught: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, object]:
        def rate(counts: Counter[str], kind: str) -> float:
            return round(counts[kind] / self.made[kind], 4) if self.made[kind] else 0.0

        rows: dict[str, object] = {
            kind: {
                "sentences": self.made[kind],
                "caught": rate(self.caught, kind),
                "reported": rate(self.reported, kind),
            }
            for kind in MISQUOTES
        }
        total = sum(self.made.values())
        rows["all"] = {
            "sentences": total,
            "caught": round(sum(self.caught.values()) / total, 4) if total else 0.0,
        }
        return rows


@dataclass(frozen=True, slots=True)
class Miss:
    """A sentence the verifier let through (or a correct one it did not support)."""

    kind: str  # "correct", a distortion kind, or "misquote:<kind>"
    text: str  # as verified, citation and quote included
    verdict: str  # the verdicts of the sentences it became, joined
    detail: str  # quote statuses, premise, the checks that failed, who decided


@dataclass(slots=True)
class Comparison:
    """Both renderings' figures over the same items."""

    items: int = 0
    sentences: int = 0
    quoted_sentences: int = 0  # sentences the quoted variant gave a quote
    plain: AnswerMetrics = field(default_factory=AnswerMetrics)
    plain_usage: Usage = field(default_factory=Usage)
    quoted: AnswerMetrics = field(default_factory=AnswerMetrics)
    quoted_usage: Usage = field(default_factory=Usage)
    misquotes: MisquoteMetrics = field(default_factory=MisquoteMetrics)
    missed: list[Miss] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "items": self.items,
            "sentences": self.sentences,
            "quoted_sentences": self.quoted_sentences,
            "without_quotes": self.plain.as_dict() | self.plain_usage.as_dict(),
            "with_quotes": self.quoted.as_dict()
            | self.quoted_usage.as_dict()
            | {"misquotes": self.misquotes.as_dict()},
            "missed": [
                {"kind": m.kind, "text": m.text, "verdict": m.verdict, "detail": m.detail}
                for m in self.missed
            ],
        }

    def keep(self, kind: str, text: str, sentences: Sequence[SentenceAnnotation]) -> None:
        """Keep the first ``EXAMPLES`` misses of each kind."""
        if sum(m.kind == kind for m in self.missed) < EXAMPLES:
            self.missed.append(Miss(kind, text, _verdicts(sentences), _detail(sentences)))


def _verdicts(sentences: Sequence[SentenceAnnotation]) -> str:
    return "+".join(s.verdict.value for s in sentences) or "no checked sentence"


def _detail(sentences: Sequence[SentenceAnnotation]) -> str:
    quotes = ",".join(q.status.value for s in sentences for q in s.quotes) or "none"
    premise = ",".join(s.premise.value if s.premise else "none" for s in sentences)
    failed = sorted(
        {
            check.name
            for s in sentences
            for check in (*s.checks, *(c for claim in s.claims for c in claim.checks))
            if not check.passed
        }
    )
    by = ",".join(sorted({s.decided_by for s in sentences}))
    return f"quotes {quotes}; premise {premise}; failed {'+'.join(failed) or 'none'}; by {by}"


def _metered(
    verify: Verify, nli: CountingNLI | None, usage: Usage, correct: frozenset[tuple[str, str]]
) -> Verify:
    """``verify`` that adds each report's sentences, pairs and quote checks to ``usage``;
    ``correct``: the (PMID, normalised quote) pairs known to be right."""

    def call(text: str, evidence: Sequence[Evidence]) -> ResponseReport:
        before = nli.pairs if nli is not None else 0
        report = verify(text, evidence)
        usage.pairs += (nli.pairs if nli is not None else 0) - before
        for sentence in report.sentences:
            if sentence.verdict is Verdict.NOT_CHECKWORTHY:
                continue
            usage.sentences += 1
            usage.quote_checked += bool(sentence.quotes)
            right = [(c.pmid, normalise(c.quote)) in correct for c in sentence.quotes]
            if all(right):  # a misquoted sentence goes without its quote, as it should
                usage.premise[sentence.premise.value if sentence.premise else "none"] += 1
            for check, ok in zip(sentence.quotes, right, strict=True):
                if ok:
                    usage.correct_quotes += 1
                    usage.called_misquote += check.status is not QuoteStatus.FOUND
        return report

    return call


def _score_misquotes(
    verify: Verify,
    quoted: QuotedItem,
    others: Sequence[QuotedItem],
    rng: random.Random,
    result: Comparison,
) -> None:
    for kind, index, quote in misquotes(quoted, others, rng):
        text, spans = quoted.text(quotes={index: quote})
        sentences = sentences_in(verify(text, quoted.evidence), spans[index])
        holding = [s for s in sentences if any(q.status in MISQUOTED for q in s.quotes)]
        caught = bool(holding) and all(s.verdict is not Verdict.SUPPORTED for s in holding)
        metrics = result.misquotes
        metrics.made[kind] += 1
        metrics.reported[kind] += bool(holding)
        metrics.caught[kind] += caught
        if not caught:
            result.keep(f"misquote:{kind}", text[spans[index][0] : spans[index][1]], sentences)


def compare(
    verify: Verify,
    items: Sequence[AnswerItem],
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
    nli: CountingNLI | None = None,
    off_topic: Sequence[Sequence[OffTopicSentence]] = (),
) -> Comparison:
    """Every item verified without quotes, then with them (distortions and misquotes);
    ``nli``: the counting backend the verifier scores with (pairs are 0 without one);
    ``off_topic[n]``: uncited sentences appended to item ``n`` in both renderings."""
    result = Comparison(items=len(items))
    variants = [quote_item(item) for item in items]
    missed: MissHook = result.keep
    for n, (item, quoted) in enumerate(zip(items, variants, strict=True), start=1):
        result.sentences += len(item.sentences)
        result.quoted_sentences += sum(bool(q) for q in quoted.quotes)
        plain = _metered(verify, nli, result.plain_usage, frozenset())
        score_item(plain, item, item, item_rng(seed, item), result.plain)
        correct = frozenset(
            (pmid, normalise(q)) for pmid, q in zip(item.pmids, quoted.quotes, strict=True) if q
        )
        with_quotes = _metered(verify, nli, result.quoted_usage, correct)
        # The same draws as the plain rendering: both meet the same perturbations.
        grounded = quoted.grounded()
        score_item(with_quotes, item, quoted, item_rng(seed, item), result.quoted, missed, grounded)
        # Misquotes draw from their own generator, so adding a kind moves no distortion.
        misquote_rng = random.Random(f"{seed}:{item.group}")
        _score_misquotes(with_quotes, quoted, variants, misquote_rng, result)
        # Off the meter: the NLI pairs per sentence are the answers' own.
        if off_topic:
            score_off_topic(verify, item, off_topic[n - 1], result.plain)
            score_off_topic(verify, quoted, off_topic[n - 1], result.quoted, missed)
        if progress is not None:
            progress(n, len(items))
    return result
