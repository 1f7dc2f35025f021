"""Document-level pairs for stage two (recipe v2), the data that small checkers (MiniCheck,
FactCG, TinyLettuce) owe their gains to:

- **Passages**: a claim against about 200 tokens of consecutive abstract sentences that hold one
  of its gold rationales, labelled as the rationale. The runtime's global pass joins a claim's
  best windows into such a premise; window pairs alone never show the model one.
- **Deletion negatives** (MiniCheck's D2C, FactCG's CG2C): the same claim against a passage of
  its abstract with every rationale sentence removed, and any sentence that still holds most of
  the claim's content words (it may restate the evidence), labelled neutral: the topic is
  there, the evidence is not.
- **CG2C** (``cg2c``): FactCG's graph-grounded claims (news and Wikipedia), binary; a negative
  drops one relation from its document, so it trains P(entailment) only (``NOT_ENTAILMENT``),
  as DocNLI and WiCE do.

Passages and deletions read the claims that have gold rationales in the training splits
(SciFact train, Check-COVID train, HealthVer train), never a dev claim, and never an abstract or
passage that a dev claim is judged against (``HeldOut``; stricter than the window readers, so no
new premise can lift a dev figure by having seen its text). Every passage stays within
``PASSAGE_TOKENS`` and leaves room for the claim in ``max_length``, so truncation never cuts the
evidence off a positive. No BioASQ or PubMedQA question is read, so none of ``veriproxy eval
answers`` can be.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer

from verifiers.training import benchmarks
from verifiers.training.examples import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    NOT_ENTAILMENT,
    Example,
    Reader,
)
from verifiers.training.paraphrases import overlap
from verifiers.training.sources import (
    ClaimDoc,
    check_covid_docs,
    healthver_train_docs,
    normalised_claim,
    read_jsonl,
    scifact_docs,
)

TokenCount = Callable[[str], int]

PASSAGE_TOKENS = 200  # premise bound: about the size of the runtime's global-pass premise
# A kept sentence holding this share of the claim's content words may still support it.
RESTATES = 0.5
SPECIAL_TOKENS = 3  # [CLS] premise [SEP] claim [SEP]
# Passages and deletions each at most this many. Today's sources make about 2,000 and 1,350 at
# 256 tokens, so the caps bind only if more sources join: the window pairs (about 33,000)
# should keep setting stage two's balance.
PASSAGE_CAP = 3000
DELETION_CAP = 3000
SHARED_CHARS = 40  # a shorter sentence ("Results:") may be common to unrelated abstracts


def token_counter(tokenizer_path: Path) -> TokenCount:
    """Word pieces of a text without special tokens, by the model's own tokenizer."""
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


@dataclass(frozen=True, slots=True)
class HeldOut:
    """What ``veriproxy eval nli`` judges: its claims and the text it judges them against."""

    claims: frozenset[str]  # normalised
    sentences: frozenset[str]  # normalised evidence sentences of at least SHARED_CHARS
    # HealthVer's dev evidence comes as unsegmented paragraphs, whose sentence bounds need not
    # match its training corpus's: their openings are matched too.
    openings: tuple[str, ...]

    @classmethod
    def read(cls, data: Path) -> HeldOut:
        scifact, checkcovid = benchmarks.scifact(data, "dev"), benchmarks.check_covid(data, "dev")
        items = [*scifact, *checkcovid, *benchmarks.healthver(data)]
        sentences = {_normalised(s) for item in items for s in item.sentences}
        return cls(
            frozenset(normalised_claim(item.claim) for item in items),
            frozenset(s for s in sentences if len(s) >= SHARED_CHARS),
            tuple(
                _normalised(" ".join(item.sentences))[:SHARED_CHARS]
                for item in items
                if item.group.startswith("healthver:")
            ),
        )

    def holds(self, doc: ClaimDoc) -> bool:
        """Whether ``doc`` has a dev claim, or a sentence of a text a dev claim is judged
        against (Check-COVID's train and dev abstracts include versions of the same paper)."""
        if normalised_claim(doc.claim) in self.claims:
            return True
        if any(_normalised(s) in self.sentences for s in doc.sentences):
            return True
        text = _normalised(" ".join(doc.sentences))
        return any(opening in text for opening in self.openings)


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


def rationale_docs(data: Path) -> Iterator[tuple[str, ClaimDoc]]:
    """(source, claim against an abstract) of the training splits with a gold rationale,
    minus everything ``HeldOut`` names."""
    held = HeldOut.read(data)
    docs = (
        *(("scifact", d) for d in scifact_docs(data, "train")),
        *(("checkcovid", d) for d in check_covid_docs(data, "train")),
        *(("healthver", d) for d in healthver_train_docs(data)),
    )
    for source, doc in docs:
        if doc.rationales and not held.holds(doc):
            yield source, doc


def grow(counts: Sequence[int], keep: Sequence[int], budget: int, rng: random.Random) -> range:
    """Consecutive indices holding all of ``keep`` whose token ``counts`` sum within
    ``budget``, grown one sentence at a time on a seeded side; empty when ``keep`` alone is
    over it."""
    lo, hi = min(keep), max(keep)
    total = sum(counts[lo : hi + 1])
    if total > budget:
        return range(0)
    while True:
        sides = [i for i in (lo - 1, hi + 1) if 0 <= i < len(counts)]
        sides = [i for i in sides if total + counts[i] <= budget]
        if not sides:
            return range(lo, hi + 1)
        side = rng.choice(sides)
        total += counts[side]
        lo, hi = min(lo, side), max(hi, side)


def _budget(claim: str, count: TokenCount, max_length: int) -> int:
    return min(PASSAGE_TOKENS, max_length - SPECIAL_TOKENS - count(claim))


def passages(
    source: str, doc: ClaimDoc, count: TokenCount, max_length: int, rng: random.Random
) -> Iterator[Example]:
    """The claim against a passage around each of its (first two) rationales, as labelled;
    only passages longer than the rationale, which the window pairs already hold."""
    counts = [count(s) for s in doc.sentences]
    budget = _budget(doc.claim, count, max_length)
    for indices, label in doc.rationales[:2]:
        keep = sorted({i for i in indices if 0 <= i < len(counts)})
        span = grow(counts, keep, budget, rng) if keep else range(0)
        if len(span) > len(keep):
            premise = " ".join(doc.sentences[i] for i in span)
            yield Example(premise, doc.claim, label, f"{source}+passage", doc.group)


def deletion(
    source: str, doc: ClaimDoc, count: TokenCount, max_length: int, rng: random.Random
) -> Example | None:
    """The claim against a passage of its abstract with the evidence removed (neutral), for a
    claim its abstract supports or contradicts; None when too little text is left."""
    if not any(label in (ENTAILMENT, CONTRADICTION) for _, label in doc.rationales):
        return None
    removed = {i for indices, _ in doc.rationales for i in indices}
    removed |= {i for i, s in enumerate(doc.sentences) if overlap(doc.claim, s) >= RESTATES}
    rest = [i for i in range(len(doc.sentences)) if i not in removed]
    if len(rest) < 2:
        return None
    # Where the evidence was: the first sentence left after it (else the last one left).
    first = min(removed)
    anchor = next((n for n, i in enumerate(rest) if i > first), len(rest) - 1)
    counts = [count(doc.sentences[i]) for i in rest]
    span = grow(counts, [anchor], _budget(doc.claim, count, max_length), rng)
    if len(span) < 2:
        return None
    premise = " ".join(doc.sentences[rest[n]] for n in span)
    return Example(premise, doc.claim, NEUTRAL, f"{source}+deleted", doc.group)


def document_readers(count: TokenCount, max_length: int) -> dict[str, Reader]:
    """CG2C, passages and deletion negatives as stage-two readers (capped by name in
    ``dataset``), each pair within ``max_length`` tokens."""

    def read_passages(data: Path, rng: random.Random) -> Iterator[Example]:
        for source, doc in rationale_docs(data):
            yield from passages(source, doc, count, max_length, rng)

    def read_deletions(data: Path, rng: random.Random) -> Iterator[Example]:
        for source, doc in rationale_docs(data):
            made = deletion(source, doc, count, max_length, rng)
            if made is not None:
                yield made

    return {"cg2c": cg2c(count, max_length), "passages": read_passages, "deletions": read_deletions}


def cg2c(count: TokenCount, max_length: int) -> Reader:
    """FactCG's CG2C as a reader: a claim against its document, 1 grounded (entailment) or 0
    not (``NOT_ENTAILMENT``). Rows without a document (most of the MuSiQue file, whose usable
    rows are all negatives) are skipped and repeated rows read once. A pair that would not fit
    ``max_length`` is left out whole, either label: a truncated positive may lose the relation
    that grounds it (the negatives differ from it by exactly one), and dropping long positives
    alone would teach that long documents ground nothing. A claim's positive and negative
    share a group, so a split keeps both on one side."""

    def read(data: Path, rng: random.Random) -> Iterator[Example]:
        seen: set[tuple[str, str]] = set()
        for name in ("CG2C_doc", "CG2C_musique"):
            for row in read_jsonl(data / "factcg" / f"{name}.json"):
                document = str(row["text_a"]).strip()
                claims: list[str] = row["text_b"]  # type: ignore[assignment]
                claim = claims[0].strip() if claims else ""
                if not document or not claim or (document, claim) in seen:
                    continue
                seen.add((document, claim))
                if count(document) + count(claim) + SPECIAL_TOKENS > max_length:
                    continue
                grounded = int(row["orig_label"]) == 1  # type: ignore[call-overload]
                label = ENTAILMENT if grounded else NOT_ENTAILMENT
                yield Example(document, claim, label, "cg2c", f"cg2c:{claim}")

    return read
