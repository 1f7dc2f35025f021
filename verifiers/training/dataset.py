"""Builds the training and validation pairs of each stage, split by claim group so no
validation claim is ever trained on.

- Stage one (``build_general``): the general-domain NLI sets as they are.
- Stage two (``build``): the biomedical sets, paraphrased supports, rule-made contradictions
  and easy neutral pairs, plus (``rehearse``) a sample of stage one's pairs so that the
  biomedical stage does not unlearn general inference (SNLI test fell from 0.743 after stage
  one to 0.623 after a stage two without it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifiers.training.claims import EMPHASIS_MAKERS, contradict
from verifiers.training.documents import DELETION_CAP, PASSAGE_CAP
from verifiers.training.examples import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    Example,
    Reader,
    is_validation,
)
from verifiers.training.general import GENERAL_READERS
from verifiers.training.paraphrases import PARAPHRASE_READERS
from verifiers.training.sources import READERS

VALIDATION_FRACTION = 0.08
# Share of supported pairs that also get a rule-made contradiction of their claim.
SYNTHETIC_RATE = 0.5
# Share of pairs that also get an unrelated window from another claim's evidence (easy neutral).
EASY_NEUTRAL_RATE = 0.1
# Citation-Integrity is mostly "accurate": cap it so it does not dominate the support class.
# HealthVer's long passages make it the slowest source to train on: cap it near a third of
# stage two.
# Recipe v2's document-level pairs are capped by reader name too (``documents``).
SOURCE_CAPS: dict[str, int] = {
    "citint": 3000,
    "healthver": 8000,
    "passages": PASSAGE_CAP,
    "deletions": DELETION_CAP,
}
# Stage one's pairs replayed in stage two: at most this many, and at most a sixth of its pairs.
REHEARSAL_PAIRS = 5000


@dataclass(frozen=True, slots=True)
class Splits:
    train: list[Example]
    validation: list[Example]

    def summary(self) -> str:
        def counts(rows: list[Example]) -> str:
            by = Counter((e.source, e.label) for e in rows)
            sources = sorted({s for s, _ in by})
            return ", ".join(
                f"{s} {by[s, 0]}/{by[s, 1]}/{by[s, 2]}"
                + (f" (+{by[s, 3]} not-ent)" if by[s, 3] else "")
                for s in sources
            )

        return (
            f"train {len(self.train)} ({counts(self.train)}); "
            f"validation {len(self.validation)} ({counts(self.validation)}) [ent/neu/con]"
        )

    def by_source(self) -> dict[str, int]:
        """Training pairs per source, largest first."""
        return dict(Counter(e.source for e in self.train).most_common())


def _augment(rows: list[Example], rng: random.Random) -> list[Example]:
    out: list[Example] = []
    for e in rows:
        if e.label == ENTAILMENT and rng.random() < SYNTHETIC_RATE:
            made = contradict(e.hypothesis, rng, e.premise)
            if made:
                out.append(Example(e.premise, made, CONTRADICTION, f"{e.source}+synth", e.group))
        if rng.random() < EASY_NEUTRAL_RATE:
            other = rng.choice(rows)
            if other.group != e.group:
                out.append(
                    Example(other.premise, e.hypothesis, NEUTRAL, f"{e.source}+far", e.group)
                )
    return out


def emphasised_pairs(
    rows: list[Example], emphasis: Mapping[str, float], rng: random.Random
) -> list[Example]:
    """More rule-made contradictions of the kinds ``emphasis`` names (kind -> share of the
    supported pairs the rewrite applies to), beyond ``_augment``'s one of a random kind."""
    out: list[Example] = []
    for e in rows:
        if e.label != ENTAILMENT:
            continue
        for kind, rate in emphasis.items():
            made = EMPHASIS_MAKERS[kind](e.hypothesis)
            if made and made != e.hypothesis and rng.random() < rate:
                out.append(Example(e.premise, made, CONTRADICTION, f"{e.source}+{kind}", e.group))
    return out


def _read(data_dir: Path, readers: Mapping[str, Reader], rng: random.Random) -> list[Example]:
    rows: list[Example] = []
    for name, reader in readers.items():
        got = list(reader(data_dir, rng))
        rng.shuffle(got)
        rows.extend(got[: SOURCE_CAPS.get(name, len(got))])
    return rows


def build_general(
    data_dir: Path,
    seed: int = 13,
    max_pairs: int | None = None,
    readers: Mapping[str, Reader] = GENERAL_READERS,
) -> Splits:
    """Stage one: the general-domain NLI pairs of ``readers``, shuffled with ``seed``."""
    rng = random.Random(seed)
    rows = _read(data_dir, readers, rng)
    rng.shuffle(rows)
    return _split(rows, max_pairs)


def build(
    data_dir: Path,
    seed: int = 13,
    max_pairs: int | None = None,
    reviewed: Sequence[Example] = (),
    documents: Mapping[str, Reader] | None = None,
    repeats: Mapping[str, int] | None = None,
    emphasis: Mapping[str, float] | None = None,
) -> Splits:
    """Stage two: all biomedical pairs, shuffled with ``seed``; ``max_pairs`` keeps a small
    sample for a tiny run. ``reviewed`` pairs (reviewers' labels on live traffic) join whole,
    past the cap, each on the side its request's hash gives it. ``documents``: a recipe's
    readers beyond the window-level ones, read after them (so the default draws stay as they
    were). ``repeats``: claim-group prefix -> how many times its training pairs are seen (the
    validation side is never repeated). ``emphasis``: more rule-made contradictions of some
    kinds (``emphasised_pairs``), drawn after the others (the default draws stay as they were)."""
    rng = random.Random(seed)
    rows = _read(data_dir, {**READERS, **PARAPHRASE_READERS, **(documents or {})}, rng)
    made = _augment(rows, rng)
    if emphasis:
        made += emphasised_pairs(rows, emphasis, rng)
    rows.extend(made)
    rng.shuffle(rows)
    splits = _split(rows, max_pairs)
    train = splits.train + repeated_pairs(splits.train, repeats or {}, rng)
    extra = _split(list(reviewed), None)
    return Splits(train + extra.train, splits.validation + extra.validation)


def repeated_pairs(
    train: list[Example], repeats: Mapping[str, int], rng: random.Random
) -> list[Example]:
    """The extra copies that ``repeats`` asks for, shuffled in among each other."""
    extra = [
        e
        for prefix, times in repeats.items()
        for e in train
        if e.group.startswith(prefix)
        for _ in range(times - 1)
    ]
    rng.shuffle(extra)
    return extra


def rehearse(biomedical: Splits, general: Splits, seed: int = 13) -> Splits:
    """Stage two's splits with a seeded sample of stage one's training pairs mixed in."""
    rng = random.Random(seed)
    count = min(REHEARSAL_PAIRS, len(general.train), len(biomedical.train) // 6)
    train = biomedical.train + rng.sample(general.train, count)
    rng.shuffle(train)
    return Splits(train, biomedical.validation)


@dataclass(frozen=True, slots=True)
class StageData:
    """Both stages' pairs, as one run of ``train-nli`` trains them."""

    general: Splits  # stage one
    biomedical: Splits  # stage two, before the replay
    mixed: Splits  # stage two's training pairs with stage one's replayed

    @property
    def rehearsed(self) -> int:
        return len(self.mixed.train) - len(self.biomedical.train)

    def by_source(self) -> dict[str, dict[str, int]]:
        """Training pairs per source of each stage (the replay counted apart)."""
        return {
            "general": self.general.by_source(),
            "biomedical": self.biomedical.by_source() | {"replayed": self.rehearsed},
        }

    def table(self) -> str:
        """The per-source counts, one line a source, for the run's log."""
        lines = []
        for stage, counts in self.by_source().items():
            total = sum(counts.values())
            lines.append(f"{stage}: {total} training pairs")
            lines += [f"  {source:<24} {n:>7}" for source, n in counts.items()]
        return "\n".join(lines)


def build_stages(
    data_dir: Path,
    seed: int = 13,
    max_pairs: int | None = None,
    reviewed: Sequence[Example] = (),
    general: Mapping[str, Reader] = GENERAL_READERS,
    documents: Mapping[str, Reader] | None = None,
    repeats: Mapping[str, int] | None = None,
    emphasis: Mapping[str, float] | None = None,
) -> StageData:
    """Stage one's and stage two's pairs, and stage two's with the replay."""
    first = build_general(data_dir, seed, max_pairs, general)
    second = build(data_dir, seed, max_pairs, reviewed, documents, repeats, emphasis)
    return StageData(first, second, rehearse(second, first, seed))


def _split(rows: list[Example], max_pairs: int | None) -> Splits:
    train = [e for e in rows if not is_validation(e.group, VALIDATION_FRACTION)]
    validation = [e for e in rows if is_validation(e.group, VALIDATION_FRACTION)]
    if max_pairs is not None:
        train = train[:max_pairs]
        validation = validation[: max(max_pairs // 4, 8)]
    return Splits(train, validation)
