"""Answer-level quality: whole cited answers through the real ``Verifier``, as users meet it.

Items come from questions that training never reads (``is_answer_eval``):

- BioASQ 7B-10B ideal answers: each sentence cited to the PMID of its best-matching gold
  snippet; the evidence per PMID is that document's gold snippets.
- PubMedQA long answers (the abstract's conclusion) against the abstract's other sections.

Each answer is verified as written, and once more for every kind of perturbation that applies:
one sentence changed by that rule (``verifiers.training.claims``), the rest left as they are.

Figures: the share of correct check-worthy sentences called ``supported``, the share called
``contradicted`` (false alarms), and per kind the share of perturbed sentences caught (any
verdict but ``supported``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from verifiers._types import Evidence, ResponseReport, SentenceAnnotation, Verdict
from verifiers.checks import Effect, check_names, get_checks
from verifiers.segment import segment
from verifiers.training.benchmarks import split_sentences
from verifiers.training.claims import (
    change_number,
    change_number_word,
    negate,
    overstate_hedge,
    reverse_comparison,
    swap_direction,
    swap_entity,
    swap_quantifier,
    swap_value,
)
from verifiers.training.examples import is_answer_eval
from verifiers.training.paraphrases import overlap
from verifiers.training.reliability import aurc, error_capture, reliability
from verifiers.windows import make_evidence

if TYPE_CHECKING:  # off_topic reads AnswerItem from here
    from verifiers.eval.off_topic import OffTopicSentence

# Perturbation kinds, each a rule that rewrites one sentence given the answer's evidence text
# (None where it does not apply).
Perturbation = Callable[[str, str, random.Random], str | None]
PERTURBATIONS: dict[str, Perturbation] = {
    "number": lambda s, context, rng: change_number(s, rng),
    "number_word": lambda s, context, rng: change_number_word(s),
    "direction": lambda s, context, rng: swap_direction(s),
    "negation": lambda s, context, rng: negate(s),
    "quantifier": lambda s, context, rng: swap_quantifier(s),
    "hedge": lambda s, context, rng: overstate_hedge(s),
    "comparison": lambda s, context, rng: reverse_comparison(s),
    "entity": swap_entity,
    "other_value": swap_value,
}
# Sentences the checks would pass over (too short to state a finding) are not perturbed.
MIN_WORDS = 6
# What ends a sentence, and what a whole sentence may end with (a closing bracket or quote).
_SENTENCE_ENDS = (".", "!", "?")
_CLOSERS = (*_SENTENCE_ENDS, ")", "]", '"', "'")


@dataclass(frozen=True, slots=True)
class AnswerItem:
    """A correct cited answer: sentences, the PMID each cites, and the evidence records."""

    group: str
    sentences: tuple[str, ...]
    pmids: tuple[str, ...]
    evidence: tuple[Evidence, ...]

    @property
    def context(self) -> str:
        """The evidence records' titles and abstracts as one text (what a perturbation may
        draw from, what an off-topic sentence must not share)."""
        return " ".join(f"{ev.title} {ev.abstract}" for ev in self.evidence)

    def text(
        self, replace: Mapping[int, str] | None = None, quotes: Sequence[str] = ()
    ) -> tuple[str, list[tuple[int, int]]]:
        """The answer with citations, and each sentence's character span in it. ``quotes``:
        per sentence, the words its citation quotes (``[PMID:123 "words"]``; '' cites plainly)."""
        replace = replace or {}
        parts: list[str] = []
        spans: list[tuple[int, int]] = []
        offset = 0
        for i, (sentence, pmid) in enumerate(zip(self.sentences, self.pmids, strict=True)):
            body = replace.get(i, sentence).rstrip().rstrip(".")
            quote = quotes[i] if i < len(quotes) else ""
            cited = f'{body} [PMID:{pmid} "{quote}"].' if quote else f"{body} [PMID:{pmid}]."
            spans.append((offset, offset + len(cited)))
            parts.append(cited)
            offset += len(cited) + 1
        return " ".join(parts), spans


def _ideal_answer(question: dict[str, Any]) -> str:
    ideal = question.get("ideal_answer") or []
    return str(ideal[0]) if isinstance(ideal, list) and ideal else str(ideal)


def _without_cut_words(snippet: str) -> str:
    """``snippet`` without the pieces of the sentences around it that BioASQ's offsets often
    take in: the end of the one before ("gimen. The ...") and the start of the one after
    ("... of lysosomal function. A", "... in ESCs. Despit"). Neither is evidence, and each
    would be a window of its own. The segmenter decides where a sentence starts, so "in E.
    coli" keeps its last word; a piece is one word, without a sentence end (the next
    sentence's start) or with one (the last one's tail)."""
    sentences = segment(snippet)
    if len(sentences) < 2:
        return snippet
    first = snippet[: sentences[1].start].strip()
    if len(first.split()) == 1 and first.rstrip(")]").endswith(_SENTENCE_ENDS):
        return _without_cut_words(snippet[sentences[1].start :])
    last = snippet[sentences[-1].start :].strip()
    if len(last.split()) == 1 and not last.endswith(_CLOSERS):
        return snippet[: sentences[-1].start].rstrip()
    return snippet


def _bioasq(data: Path, held_out: bool = True) -> Iterator[AnswerItem]:
    questions = [
        q
        for path in sorted((data / "bioasq").glob("*_golden.json"))
        for q in json.loads(path.read_text(encoding="utf-8"))["questions"]
    ]
    # Differently worded questions can share an ideal answer, and an answer can quote another
    # question's snippet: an item whose sentences a training question holds is not held out.
    trained: set[str] = set()
    for q in questions if held_out else ():
        if not is_answer_eval(f"bioasq:{q['body'].strip()}"):
            trained.update(split_sentences(_ideal_answer(q)))
            trained.update(str(s["text"]).strip() for s in q.get("snippets", []))
    seen: set[str] = set()
    for q in questions:
        body = q["body"].strip()
        if body in seen or is_answer_eval(f"bioasq:{body}") is not held_out:
            continue
        seen.add(body)
        answer = _ideal_answer(q)
        if trained.intersection(split_sentences(answer)):
            continue
        snippets: dict[str, list[str]] = {}
        for s in q.get("snippets", []):
            pmid = str(s["document"]).rstrip("/").rsplit("/", 1)[-1]
            snippets.setdefault(pmid, []).append(_without_cut_words(str(s["text"]).strip()))
        if not snippets:
            continue
        sentences, pmids = [], []
        for sentence in split_sentences(answer):
            best = max(snippets, key=lambda p: overlap(sentence, " ".join(snippets[p])))
            sentences.append(sentence)
            pmids.append(best)
        evidence = tuple(make_evidence(p, "", texts) for p, texts in snippets.items())
        yield AnswerItem(f"bioasq:{q['id']}", tuple(sentences), tuple(pmids), evidence)


def _pubmedqa(data: Path, held_out: bool = True) -> Iterator[AnswerItem]:
    rows = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    for pmid, row in rows.items():
        group = f"pubmedqa:{pmid}"
        if is_answer_eval(group) is not held_out:
            continue
        sentences = split_sentences(row["LONG_ANSWER"])
        context = [s for part in row["CONTEXTS"] for s in split_sentences(part)]
        evidence = make_evidence(pmid, row["QUESTION"], context)
        yield AnswerItem(group, sentences, (pmid,) * len(sentences), (evidence,))


def load_items(
    data: Path, source: str = "all", limit: int | None = None, *, held_out: bool = True
) -> list[AnswerItem]:
    """The held-out answer items, BioASQ first; ``limit`` caps each source. ``held_out=False``
    gives the answers to the training questions instead (what the confidence model is fitted
    on; never the evaluation's)."""
    readers = {"bioasq": _bioasq, "pubmedqa": _pubmedqa}
    chosen = readers if source == "all" else {source: readers[source]}
    items: list[AnswerItem] = []
    for reader in chosen.values():
        got = [i for i in reader(data, held_out) if i.sentences]
        items.extend(got[:limit])
    return items


@dataclass(slots=True)
class AnswerMetrics:
    correct: int = 0
    supported: int = 0
    contradicted: int = 0
    perturbed: Counter[str] = field(default_factory=Counter)
    caught: Counter[str] = field(default_factory=Counter)
    # The same, only for sentences whose correct form was called supported: a verifier that
    # supports nothing would catch every perturbation, and this rate does not reward that.
    perturbed_of_supported: Counter[str] = field(default_factory=Counter)
    caught_of_supported: Counter[str] = field(default_factory=Counter)
    # What made correct sentences fall short: the failed deterministic checks, or the verifier
    # whose verdict it was ("model", or "judge" in the cascade) when none failed.
    contradicted_by: Counter[str] = field(default_factory=Counter)
    not_supported_by: Counter[str] = field(default_factory=Counter)
    # Selective verification: correct sentences supported or marked needs_review, those
    # contradicted without the mark (confident false alarms), perturbed sentences caught or
    # marked, and each judged sentence's (confidence, verdict right) for the error capture.
    supported_or_review: int = 0
    contradicted_unmarked: int = 0
    # Correct sentences marked needs_review whatever their verdict: what the mark costs a
    # reviewer on answers that were right.
    marked: int = 0
    caught_or_review: Counter[str] = field(default_factory=Counter)
    confidence: list[tuple[float, bool]] = field(default_factory=list)
    # With quotes: the correct sentences whose quote holds at least half their content words
    # (``GROUNDED_OVERLAP``), and those of them supported. The rest say more than the words
    # they quote (BioASQ's ideal answers often do), so this tells the verifier's misses from
    # the answer's.
    grounded: int = 0
    grounded_supported: int = 0
    # Off-topic uncited sentences appended to the answers (``verifiers.eval.off_topic``), per
    # kind: those appended, those judged check-worthy, and of them those called contradicted
    # (the right verdict is ``uncited``), with and without the needs_review mark.
    off_topic: Counter[str] = field(default_factory=Counter)
    off_topic_checked: Counter[str] = field(default_factory=Counter)
    off_topic_contradicted: Counter[str] = field(default_factory=Counter)
    off_topic_contradicted_unmarked: Counter[str] = field(default_factory=Counter)

    @property
    def supported_rate(self) -> float:
        return self.supported / self.correct if self.correct else 0.0

    @property
    def false_contradicted_rate(self) -> float:
        return self.contradicted / self.correct if self.correct else 0.0

    def caught_rate(self, kind: str) -> float:
        return self.caught[kind] / self.perturbed[kind] if self.perturbed[kind] else 0.0

    def caught_of_supported_rate(self, kind: str) -> float:
        n = self.perturbed_of_supported[kind]
        return self.caught_of_supported[kind] / n if n else 0.0

    def rate(self, count: int) -> float:
        return count / self.correct if self.correct else 0.0

    def selective(self) -> dict[str, object]:
        """Error capture at 10/20/30%, AURC and ECE of the sentences' confidence."""
        confidence = [c for c, _ in self.confidence]
        right = [r for _, r in self.confidence]
        _, ece = reliability(confidence, right)
        return {
            "error_capture": {f"{k}%": v for k, v in error_capture(confidence, right).items()},
            "aurc": aurc(confidence, right),
            "ece": ece,
        }

    def as_dict(self) -> dict[str, object]:
        return {
            "correct_sentences": self.correct,
            "supported_rate": round(self.supported_rate, 4),
            "supported_or_review_rate": round(self.rate(self.supported_or_review), 4),
            "false_contradicted_rate": round(self.false_contradicted_rate, 4),
            "false_contradicted_unmarked_rate": round(self.rate(self.contradicted_unmarked), 4),
            "marked_rate": round(self.rate(self.marked), 4),
            "grounded_sentences": self.grounded,
            "grounded_supported_rate": round(self.grounded_supported / max(self.grounded, 1), 4),
            "selective": self.selective(),
            "false_contradicted_by": dict(self.contradicted_by.most_common()),
            "not_supported_by": dict(self.not_supported_by.most_common()),
            "perturbed": {
                kind: {
                    "sentences": self.perturbed[kind],
                    "caught": round(self.caught_rate(kind), 4),
                    "of_supported": self.perturbed_of_supported[kind],
                    "caught_of_supported": round(self.caught_of_supported_rate(kind), 4),
                    "caught_or_review": round(
                        self.caught_or_review[kind] / max(self.perturbed[kind], 1), 4
                    ),
                }
                for kind in PERTURBATIONS
            },
            "off_topic": {
                kind: {
                    "sentences": self.off_topic[kind],
                    "checked": self.off_topic_checked[kind],
                    "contradicted": self.off_topic_contradicted[kind],
                    "contradicted_rate": round(
                        self.off_topic_contradicted[kind] / max(self.off_topic_checked[kind], 1), 4
                    ),
                    "contradicted_unmarked": self.off_topic_contradicted_unmarked[kind],
                }
                for kind in self.off_topic
            },
        }


def sentences_in(report: ResponseReport, span: tuple[int, int]) -> list[SentenceAnnotation]:
    """The report's sentences that overlap ``span`` (the segmenter may split an answer
    sentence differently)."""
    a, b = span
    return [s for s in report.sentences if s.start < b and a < s.end]


def judged_in(report: ResponseReport, span: tuple[int, int]) -> list[SentenceAnnotation]:
    return [s for s in sentences_in(report, span) if s.verdict is not Verdict.NOT_CHECKWORTHY]


def cause(sentences: Sequence[SentenceAnnotation], verdict: Verdict) -> str:
    """Why sentences got ``verdict``: the checks that failed on them (claim checks included)
    and can give that verdict; when none did, ``judge`` if the LLM judge's verdict stood, else
    ``model``. Only a check whose failure contradicts (a changed number, a flipped direction
    or negation) explains a contradiction: one that withholds support (an entity or a number
    the evidence does not name) or sets a model contradiction aside (``finding``,
    ``shared_negation``) failing beside it did not make it."""
    can_contradict = _contradicting_results()
    failed = {
        check.name
        for s in sentences
        if s.verdict is verdict
        for check in (*s.checks, *(c for claim in s.claims for c in claim.checks))
        if not check.passed
        and (verdict is not Verdict.CONTRADICTED or check.name in can_contradict)
    }
    if failed:
        return "+".join(sorted(failed))
    judged = any(s.decided_by.startswith("judge:") for s in sentences if s.verdict is verdict)
    return "judge" if judged else "model"


def _contradicting_results() -> frozenset[str]:
    """The check results whose failure can make a claim contradicted, over every registered
    check (a user's own included)."""
    return frozenset(
        name
        for check in get_checks(check_names())
        for name, effect in check.effects.items()
        if effect in (Effect.CONTRADICTS, Effect.REFUTES_SUPPORT)
    )


def perturbations(item: AnswerItem, rng: random.Random) -> Iterator[tuple[str, int, str]]:
    """(kind, sentence index, perturbed sentence) for each kind that applies to some sentence."""
    order = [i for i, s in enumerate(item.sentences) if len(s.split()) >= MIN_WORDS]
    rng.shuffle(order)
    context = item.context
    for kind, rule in PERTURBATIONS.items():
        for i in order:
            made = rule(item.sentences[i], context, rng)
            if made and made != item.sentences[i]:
                yield kind, i, made
                break


class Rendered(Protocol):
    """An answer item as the verifier reads it: its text (a sentence replaced or not) and the
    evidence it is verified against. ``AnswerItem`` is one; the quoted variant is another."""

    @property
    def evidence(self) -> tuple[Evidence, ...]: ...

    def text(
        self, replace: Mapping[int, str] | None = None
    ) -> tuple[str, list[tuple[int, int]]]: ...


# Sees the sentences a verdict fell short on: (kind, the sentence as verified, its annotations);
# kind "correct" for a correct sentence not called supported.
MissHook = Callable[[str, str, Sequence[SentenceAnnotation]], None]


def item_rng(seed: int, item: AnswerItem) -> random.Random:
    """The perturbation draws of one item, its own: a rule that declines on one item, or draws
    once more, moves no other item's perturbations, so two runs differ only where their rules
    do (a generator shared by all items shifted every later draw)."""
    return random.Random(f"{seed}:{item.group}:distortions")


def evaluate(
    verify: Callable[[str, Sequence[Evidence]], ResponseReport],
    items: Sequence[AnswerItem],
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
    off_topic: Sequence[Sequence[OffTopicSentence]] = (),
) -> AnswerMetrics:
    """``off_topic[n]``: the uncited off-topic sentences to append to item ``n`` (none when
    empty)."""
    result = AnswerMetrics()
    for n, item in enumerate(items, start=1):
        score_item(verify, item, item, item_rng(seed, item), result)
        if off_topic:
            score_off_topic(verify, item, off_topic[n - 1], result)
        if progress is not None:
            progress(n, len(items))
    return result


def score_item(
    verify: Callable[[str, Sequence[Evidence]], ResponseReport],
    item: AnswerItem,
    rendered: Rendered,
    rng: random.Random,
    result: AnswerMetrics,
    missed: MissHook | None = None,
    grounded: Sequence[bool] = (),
) -> None:
    """Add one item to ``result``: its answer as ``rendered`` writes it, then once per
    perturbation kind. The perturbations are drawn from ``item`` (the answer as written and
    its evidence), so every rendering of an item meets the same ones for the same ``rng``.
    ``grounded[i]``: sentence ``i``'s quote holds at least half its content words."""
    text, spans = rendered.text()
    report = verify(text, rendered.evidence)
    supported: set[int] = set()
    for i, span in enumerate(spans):
        sentences = judged_in(report, span)
        if not sentences:
            continue
        result.correct += 1
        verdicts = {s.verdict for s in sentences}
        if i < len(grounded) and grounded[i]:
            result.grounded += 1
            result.grounded_supported += verdicts == {Verdict.SUPPORTED}
        marked = any(s.needs_review for s in sentences)
        result.marked += marked
        result.supported_or_review += verdicts == {Verdict.SUPPORTED} or marked
        result.confidence.append(
            (min(s.confidence for s in sentences), verdicts == {Verdict.SUPPORTED})
        )
        if verdicts == {Verdict.SUPPORTED}:
            result.supported += 1
            supported.add(i)
            continue
        if missed is not None:
            missed("correct", text[span[0] : span[1]], sentences)
        if Verdict.CONTRADICTED in verdicts:
            result.contradicted += 1
            result.contradicted_unmarked += not marked
            result.contradicted_by[cause(sentences, Verdict.CONTRADICTED)] += 1
        else:
            short = min((v for v in verdicts if v is not Verdict.SUPPORTED), key=str)
            result.not_supported_by[f"{short.value}: {cause(sentences, short)}"] += 1
    for kind, index, sentence in perturbations(item, rng):
        text, spans = rendered.text({index: sentence})
        perturbed = judged_in(verify(text, rendered.evidence), spans[index])
        caught = any(s.verdict is not Verdict.SUPPORTED for s in perturbed)
        result.perturbed[kind] += 1
        result.caught[kind] += caught
        result.caught_or_review[kind] += caught or any(s.needs_review for s in perturbed)
        if perturbed:
            result.confidence.append((min(s.confidence for s in perturbed), caught))
        if index in supported:
            result.perturbed_of_supported[kind] += 1
            result.caught_of_supported[kind] += caught
        if missed is not None and not caught:
            missed(kind, text[spans[index][0] : spans[index][1]], perturbed)


def score_off_topic(
    verify: Callable[[str, Sequence[Evidence]], ResponseReport],
    rendered: Rendered,
    off_topic: Sequence[OffTopicSentence],
    result: AnswerMetrics,
    missed: MissHook | None = None,
) -> None:
    """The answer as ``rendered`` writes it with the off-topic sentences after it, uncited:
    any of them called ``contradicted`` is a false alarm (kind ``off_topic:<kind>`` for
    ``missed``). A pass of its own, so that what it costs is not counted as the answer's."""
    text, _ = rendered.text()
    spans: list[tuple[int, int]] = []
    for sentence in off_topic:
        spans.append((len(text) + 1, len(text) + 1 + len(sentence.text)))
        text = f"{text} {sentence.text}"
    report = verify(text, rendered.evidence)
    for sentence, span in zip(off_topic, spans, strict=True):
        result.off_topic[sentence.kind] += 1
        judged = judged_in(report, span)
        result.off_topic_checked[sentence.kind] += bool(judged)
        if not any(s.verdict is Verdict.CONTRADICTED for s in judged):
            continue
        result.off_topic_contradicted[sentence.kind] += 1
        result.off_topic_contradicted_unmarked[sentence.kind] += not any(
            s.needs_review for s in judged
        )
        if missed is not None:
            missed(f"off_topic:{sentence.kind}", sentence.text, judged)
