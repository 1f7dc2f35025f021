"""Off-topic uncited sentences for ``eval answers``: what the verifier says of a sentence that has
nothing to do with the evidence.

An answer may carry a sentence that cites nothing and speaks of something else: an aside, a
sentence from another topic, boilerplate. Its right verdict is ``uncited``; calling it
``contradicted`` is a false alarm no curated answer shows, and one a model trained longer on
general NLI makes (SNLI's convention reads two unrelated descriptions of a scene as a
contradiction). Each item gets one sentence of each kind, appended to its answer uncited:

- **other_answer**: a sentence of another held-out answer (biomedical, another topic): the
  first, from the item half the list away on, of at least ``MIN_WORDS`` words of which at most
  ``MAX_OVERLAP`` of the content words are in this item's evidence.
- **everyday**: a sentence of SNLI's test split (premises and hypotheses: everyday scenes,
  some fanciful), which training never reads (stage one scores it after training), chosen by a
  hash of the item, so the same item always gets the same sentence.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verifiers.eval.answers import MIN_WORDS, AnswerItem
from verifiers.training.paraphrases import overlap

KINDS = ("other_answer", "everyday")
# An "other" answer's sentence sharing more than this share of its content words with the
# item's evidence may be on topic after all (two BioASQ questions on one gene).
MAX_OVERLAP = 0.25
SNLI_TEST = ("general_nli/snli/s1.test", "general_nli/snli/s2.test")
# SNLI is tokenised ("The church is filled with song . ", "does n't"): put it back together.
_SPACE_BEFORE = re.compile(r" (?=[.,!?;:)]|n't\b|'s\b|'re\b|'ll\b|'ve\b|'m\b|'d\b)")


@dataclass(frozen=True, slots=True)
class OffTopicSentence:
    kind: str  # one of ``KINDS``
    text: str


def everyday_sentences(data: Path) -> tuple[str, ...]:
    """SNLI test's distinct sentences of four words or more, detokenised, each ending in a full
    stop; none where ``data`` does not hold SNLI's test split."""
    seen: dict[str, None] = {}
    for name in SNLI_TEST:
        path = data / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            text = _SPACE_BEFORE.sub("", " ".join(line.split())).rstrip(" .")
            if len(text.split()) >= 4:
                seen.setdefault(f"{text[0].upper()}{text[1:]}.", None)
    return tuple(seen)


def off_topic(items: Sequence[AnswerItem], data: Path) -> list[tuple[OffTopicSentence, ...]]:
    """Per item, its off-topic sentences (one per kind that found one), in ``KINDS`` order."""
    everyday = everyday_sentences(data)
    chosen: list[tuple[OffTopicSentence, ...]] = []
    for n, item in enumerate(items):
        sentences = []
        other = _other_answer(items, n)
        if other:
            sentences.append(OffTopicSentence("other_answer", other))
        if everyday:
            digest = hashlib.sha256(item.group.encode()).digest()
            pick = everyday[int.from_bytes(digest[:8], "big") % len(everyday)]
            sentences.append(OffTopicSentence("everyday", pick))
        chosen.append(tuple(sentences))
    return chosen


def _other_answer(items: Sequence[AnswerItem], n: int) -> str | None:
    """The first sentence, from the item half the list away on, off the topic of item ``n``."""
    evidence = items[n].context
    for step in range(len(items) // 2, len(items) // 2 + len(items)):
        other = items[(n + step) % len(items)]
        if other.group == items[n].group:
            continue
        for sentence in other.sentences:
            words = len(sentence.split())
            if words >= MIN_WORDS and overlap(sentence, evidence) <= MAX_OVERLAP:
                sentence = sentence.rstrip()
                return sentence if sentence.endswith((".", "!", "?")) else f"{sentence}."
    return None
