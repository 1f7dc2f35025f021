"""The quoted variant of an answer item (``veriproxy eval answers --quotes``), and its misquotes.

Every sentence of the answer cites its PMID with words quoted from that evidence record, as
the citation contract asks a model to (``[PMID:123 "exact words"]``): the run of at most
``MAX_QUOTE_WORDS`` consecutive words, inside one sentence of the record, that holds most of
the answer sentence's content words (ties: the first). No randomness: the same item always
gets the same quotes.

- BioASQ: the record is the cited document's gold snippets, verbatim spans of its abstract,
  so the quote is the snippet words the sentence rests on.
- PubMedQA: the answer is the abstract's conclusion, which the plain item leaves out of its
  evidence (the other sections). The quoted variant puts the conclusion back where it stands
  in the abstract, at the end, and each answer sentence quotes itself: the easy case. What this
  source measures with quotes is the distortions and misquotes, not paraphrase.

Misquotes (``MISQUOTES``): the sentence stays as written and its quote is wrong: one word
changed, a number changed, words of another record of the item, or of another item's
evidence. Each is checked to be in none of the evidence it must not be in (after the quote
check's normalisation), so a misquote is really one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from verifiers._types import Evidence
from verifiers.checks.normalise import content_tokens
from verifiers.checks.quotes import quote_source
from verifiers.eval.answers import MIN_WORDS, AnswerItem
from verifiers.quoting import MAX_QUOTE_CHARS
from verifiers.training.claims import change_number
from verifiers.training.paraphrases import overlap
from verifiers.windows import make_evidence

MAX_QUOTE_WORDS = 30  # the contract asks for "at most about 30 words"
MIN_QUOTE_WORDS = 3  # shorter runs are terms, not quotes
# A sentence whose quote holds less than this share of its content words says more than it
# quotes (BioASQ's ideal answers often go beyond their snippets); reported apart.
GROUNDED_OVERLAP = 0.5
# A word holding one of these could not stand inside a quote: it would open or close the quote
# or the bracket (as ``verifiers.quoting`` reads them), or cut the quote in two (an ellipsis).
_UNQUOTABLE = re.compile(r"[\"\u201c\u201d\u201e\u201f\u00ab\u00bb\[\]\u2026]|\.\.\.")
_SENTENCE_END = re.compile(r"[.!?]$")
_LINE_BREAK = re.compile(r"[\n\r\v\f\x85\u2028\u2029]")
_WORD = re.compile(r"\S+")
_CONTENT_WORD = re.compile(r"(?<![\w-])[A-Za-z]{4,}(?![\w-])")
_TRIM = " .,;:"


@dataclass(frozen=True, slots=True)
class QuotedItem:
    """An answer item whose citations quote their evidence."""

    item: AnswerItem  # the answer as written; its perturbations are drawn from it
    quotes: tuple[str, ...]  # per sentence, verbatim words of its cited record ('' if none)
    evidence: tuple[Evidence, ...]  # what the quotes are in (PubMedQA: with the conclusion)

    def text(
        self, replace: Mapping[int, str] | None = None, quotes: Mapping[int, str] | None = None
    ) -> tuple[str, list[tuple[int, int]]]:
        """The answer with quoted citations (``quotes`` replaces some), and each sentence's
        character span in it."""
        written = [(quotes or {}).get(i, q) for i, q in enumerate(self.quotes)]
        return self.item.text(replace, quotes=written)

    def grounded(self) -> list[bool]:
        """Per sentence, whether its quote holds at least ``GROUNDED_OVERLAP`` of its content
        words."""
        return [
            bool(q) and overlap(s, q) >= GROUNDED_OVERLAP
            for s, q in zip(self.item.sentences, self.quotes, strict=True)
        ]

    def record(self, index: int) -> Evidence:
        """The evidence record sentence ``index`` cites."""
        pmid = self.item.pmids[index]
        return next(ev for ev in self.evidence if ev.pmid == pmid)


def quote_item(item: AnswerItem) -> QuotedItem:
    """The quoted variant of ``item`` (see the module's docstring)."""
    evidence = _with_conclusion(item) if item.group.startswith("pubmedqa:") else item.evidence
    by_pmid = {ev.pmid: ev for ev in evidence}
    quotes = tuple(
        best_quote(sentence, (by_pmid[pmid],))
        for sentence, pmid in zip(item.sentences, item.pmids, strict=True)
    )
    return QuotedItem(item, quotes, evidence)


def _with_conclusion(item: AnswerItem) -> tuple[Evidence, ...]:
    """PubMedQA: the abstract with its conclusion (the answer) back at its end."""
    (record,) = item.evidence
    sentences = [s.text for s in record.sentences] + list(item.sentences)
    return (make_evidence(record.pmid, record.title, sentences),)


def quote_windows(record: Evidence) -> Iterator[str]:
    """Every run of ``MIN_QUOTE_WORDS`` to ``MAX_QUOTE_WORDS`` words a quote could take from
    ``record`` (as long as the sentence allows), verbatim, inside one sentence and one line,
    without the characters a quote cannot hold and without trailing punctuation."""
    for run in _runs(record):
        yield from _windows_of(record.abstract, run)


def _runs(record: Evidence) -> Iterator[list[re.Match[str]]]:
    """The record's words in runs a quote may span: a sentence end, a line break (a quote
    cannot hold one: ``verifiers.quoting`` reads no quote across lines) or an unquotable word
    ends a run."""
    text = record.abstract
    for sentence in record.sentences:
        run: list[re.Match[str]] = []
        for word in _WORD.finditer(text, sentence.start, sentence.end):
            if run and _LINE_BREAK.search(text, run[-1].end(), word.start()):
                yield run
                run = []
            if _UNQUOTABLE.search(word.group()):
                yield run
                run = []
                continue
            run.append(word)
            if _SENTENCE_END.search(word.group()):
                yield run
                run = []
        yield run


def _windows_of(text: str, run: Sequence[re.Match[str]]) -> Iterator[str]:
    size = min(len(run), MAX_QUOTE_WORDS)
    for first in range(len(run) - size + 1 if size else 0):
        words = list(run[first : first + size])  # shortened to the parser's bound
        while len(words) > 1 and words[-1].end() - words[0].start() > MAX_QUOTE_CHARS:
            words.pop()
        quote = text[words[0].start() : words[-1].end()].strip(_TRIM)
        if len(quote.split()) >= MIN_QUOTE_WORDS:
            yield quote


def best_quote(sentence: str, records: Sequence[Evidence]) -> str:
    """The window of ``records`` sharing most content words with ``sentence`` ('' if none)."""
    best, score = "", -1.0
    for record in records:
        for quote in quote_windows(record):
            shared = overlap(sentence, quote)
            if shared > score:
                best, score = quote, shared
    return best


# -- misquotes --------------------------------------------------------------------------------

# A rule that writes a wrong quote for sentence ``index`` of an item, given the other items
# (for quotes of other evidence); None where it does not apply.
Misquote = Callable[[QuotedItem, int, Sequence[QuotedItem], random.Random], str | None]


def _sources(records: Sequence[Evidence]) -> list[tuple[str, str]]:
    return [(ev.pmid, f"{ev.title} {ev.abstract}") for ev in records]


def _nowhere(quote: str | None, records: Sequence[Evidence]) -> str | None:
    """``quote`` if it is in none of ``records`` (as the quote check normalises), else None."""
    return quote if quote and quote_source(quote, _sources(records)) is None else None


def change_word(
    quoted: QuotedItem, index: int, others: Sequence[QuotedItem], rng: random.Random
) -> str | None:
    """The quote with one content word replaced by a word of the item's evidence that is no
    form of it (the quote check must then find it nowhere)."""
    quote = quoted.quotes[index]
    targets = [m for m in _CONTENT_WORD.finditer(quote) if content_tokens(m.group())]
    if not targets:
        return None
    target = rng.choice(targets)
    stem = content_tokens(target.group())
    in_quote = {w.casefold() for w in _CONTENT_WORD.findall(quote)}
    text = " ".join(ev.abstract for ev in quoted.evidence)
    vocabulary = sorted(
        {
            w.casefold()
            for w in _CONTENT_WORD.findall(text)
            if w.casefold() not in in_quote and content_tokens(w) and not content_tokens(w) & stem
        }
    )
    if not vocabulary:
        return None
    word = rng.choice(vocabulary)
    if target.group()[0].isupper():
        word = word.capitalize()
    made = quote[: target.start()] + word + quote[target.end() :]
    return _nowhere(made, quoted.evidence)


def change_quoted_number(
    quoted: QuotedItem, index: int, others: Sequence[QuotedItem], rng: random.Random
) -> str | None:
    """The quote with one of its numbers scaled (as the ``number`` distortion scales one)."""
    return _nowhere(change_number(quoted.quotes[index], rng), quoted.evidence)


def other_abstract(
    quoted: QuotedItem, index: int, others: Sequence[QuotedItem], rng: random.Random
) -> str | None:
    """Words of another record of the same item (the one closest to the sentence), still
    cited to the sentence's own PMID: the quote check should say where they are."""
    cited = quoted.record(index)
    records = [ev for ev in quoted.evidence if ev.pmid != cited.pmid]
    return _nowhere(best_quote(quoted.item.sentences[index], records), (cited,))


def other_item(
    quoted: QuotedItem, index: int, others: Sequence[QuotedItem], rng: random.Random
) -> str | None:
    """Words of another item's evidence (the window closest to the sentence there), cited to
    the sentence's own PMID: in none of this answer's evidence."""
    pmids = {ev.pmid for ev in quoted.evidence}
    candidates = [
        o for o in others if o.item.group != quoted.item.group and not pmids & set(o.item.pmids)
    ]
    if not candidates:
        return None
    source = rng.choice(candidates)
    return _nowhere(best_quote(quoted.item.sentences[index], source.evidence), quoted.evidence)


MISQUOTES: dict[str, Misquote] = {
    "word": change_word,
    "number": change_quoted_number,
    "other_abstract": other_abstract,
    "other_item": other_item,
}


def misquotes(
    quoted: QuotedItem, others: Sequence[QuotedItem], rng: random.Random
) -> Iterator[tuple[str, int, str]]:
    """(kind, sentence index, wrong quote) for each kind that applies to some sentence."""
    order = [
        i
        for i, (sentence, quote) in enumerate(
            zip(quoted.item.sentences, quoted.quotes, strict=True)
        )
        if quote and len(sentence.split()) >= MIN_WORDS
    ]
    rng.shuffle(order)
    for kind, rule in MISQUOTES.items():
        for i in order:
            made = rule(quoted, i, others, rng)
            if made:
                yield kind, i, made
                break
