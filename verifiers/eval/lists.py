"""Answers written as a list of bare names (``veriproxy eval lists``).

LLMs answer "which genes / drugs / symptoms ..." with a label and one name per line, each cited:
``**Answer:**`` then ``- casirivimab [PMID:123]``. Such an item states no clause, and until
2026-12-06 it went out ``not_checkworthy``: a wrong name passed as talk. Items come from the
held-out BioASQ list questions (``is_answer_eval``): each exact answer of at most four words
that a gold snippet holds, cited to that snippet's document (the evidence per PMID is its gold
snippets). Each answer is verified as written, and once more with one name swapped for another
held-out question's answer that none of its snippets holds.

Each answer is written a second way too (``RENDERINGS``): cited once, by its last item, with
every PMID its names rest on (``- a`` ``- b`` ``- c [PMID:1] [PMID:2]``).

Figures, per rendering: of the correct names, the share flagged (``unsupported`` or
``contradicted``), called ``supported``, and left ``not_checkworthy``; of the swapped names, the
share caught (any verdict but ``supported`` and ``not_checkworthy``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifiers._types import Evidence, ResponseReport, Verdict
from verifiers.training.examples import is_answer_eval
from verifiers.windows import make_evidence

Verify = Callable[[str, Sequence[Evidence]], ResponseReport]

LABEL = "**Answer:**"
MAX_NAME_WORDS = 4  # a longer exact answer is a phrase, not a name
_CAUGHT = frozenset(Verdict) - {Verdict.SUPPORTED, Verdict.NOT_CHECKWORTHY}


@dataclass(frozen=True, slots=True)
class ListItem:
    """A list answer: each name with the PMID it is cited to, the evidence, and the name that
    replaces ``names[swapped]`` in its wrong version."""

    group: str
    names: tuple[str, ...]
    pmids: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    swap: str
    swapped: int


def render(names: Sequence[str], pmids: Sequence[str]) -> str:
    return LABEL + "\n" + "".join(f"- {n} [PMID:{p}]\n" for n, p in zip(names, pmids, strict=True))


def render_cited_at_end(names: Sequence[str], pmids: Sequence[str]) -> str:
    """The list cited once, by its last item: every PMID the names rest on, there."""
    cites = " ".join(f"[PMID:{p}]" for p in dict.fromkeys(pmids))
    return LABEL + "\n" + "".join(f"- {n}\n" for n in names[:-1]) + f"- {names[-1]} {cites}\n"


# How the answer cites its names: each on its own line, or the list once at its end.
RENDERINGS: dict[str, Callable[[Sequence[str], Sequence[str]], str]] = {
    "cited_per_item": render,
    "cited_at_end": render_cited_at_end,
}


def load_list_items(data: Path, limit: int | None = None, seed: int = 13) -> list[ListItem]:
    """The held-out BioASQ list questions with at least two names their snippets hold."""
    questions = list(_held_out_list_questions(data))
    pool = sorted({a[0] for q in questions for a in q["exact_answer"] if _name(a)})
    rng = random.Random(seed)
    items: list[ListItem] = []
    for q in questions:
        snippets: dict[str, list[str]] = {}
        for s in q.get("snippets", []):
            pmid = str(s["document"]).rstrip("/").rsplit("/", 1)[-1]
            snippets.setdefault(pmid, []).append(str(s["text"]).strip())
        said = " ".join(" ".join(t) for t in snippets.values()).lower()
        names: list[str] = []
        pmids: list[str] = []
        for answer in q["exact_answer"]:
            holder = _holder(answer[0], snippets) if _name(answer) else None
            if holder is not None:
                names.append(answer[0])
                pmids.append(holder)
        swaps = [n for n in pool if n.lower() not in said]
        if len(names) < 2 or not swaps:
            continue
        evidence = tuple(make_evidence(p, "", texts) for p, texts in snippets.items())
        items.append(
            ListItem(
                f"bioasq:{q['id']}",
                tuple(names),
                tuple(pmids),
                evidence,
                rng.choice(swaps),
                rng.randrange(len(names)),
            )
        )
    return items[:limit]


def _held_out_list_questions(data: Path) -> Iterator[dict[str, Any]]:
    seen: set[str] = set()
    for path in sorted((data / "bioasq").glob("*_golden.json")):
        for q in json.loads(path.read_text(encoding="utf-8"))["questions"]:
            body = q["body"].strip()
            if q.get("type") != "list" or body in seen or not is_answer_eval(f"bioasq:{body}"):
                continue
            seen.add(body)
            yield q


def _holder(name: str, snippets: dict[str, list[str]]) -> str | None:
    """The first PMID whose snippets hold ``name`` (ignoring case)."""
    return next((p for p, t in snippets.items() if name.lower() in " ".join(t).lower()), None)


def _name(answer: object) -> bool:
    """Whether an exact answer (a list of synonyms) is a name of at most a few words."""
    return (
        isinstance(answer, list)
        and bool(answer)
        and isinstance(answer[0], str)
        and 0 < len(answer[0].split()) <= MAX_NAME_WORDS
    )


@dataclass(slots=True)
class ListMetrics:
    answers: int = 0
    correct: Counter[str] = field(default_factory=Counter)  # verdicts of the correct names
    swapped: Counter[str] = field(default_factory=Counter)  # verdicts of the swapped names
    misread: int = 0  # answers whose items did not segment one per line (none expected)

    def as_dict(self) -> dict[str, object]:
        correct, swapped = sum(self.correct.values()), sum(self.swapped.values())
        flagged = self.correct["unsupported"] + self.correct["contradicted"]
        caught = sum(n for v, n in self.swapped.items() if Verdict(v) in _CAUGHT)
        return {
            "answers": self.answers,
            "correct_names": correct,
            "correct_flagged": flagged,
            "correct_flagged_rate": flagged / correct if correct else 0.0,
            "correct_supported": self.correct["supported"],
            "correct_not_checkworthy": self.correct["not_checkworthy"],
            "swapped_names": swapped,
            "swapped_caught": caught,
            "swapped_caught_rate": caught / swapped if swapped else 0.0,
            "swapped_not_checkworthy": self.swapped["not_checkworthy"],
            "correct_verdicts": dict(self.correct),
            "swapped_verdicts": dict(self.swapped),
            "misread": self.misread,
        }


def evaluate_lists(
    verify: Verify,
    items: Sequence[ListItem],
    progress: Callable[[int, int], None] | None = None,
    rendering: str = "cited_per_item",
) -> ListMetrics:
    """Every item verified as written and with its name swapped, in ``rendering`` (one of
    ``RENDERINGS``)."""
    written = RENDERINGS[rendering]
    metrics = ListMetrics()
    for done, item in enumerate(items, 1):
        metrics.answers += 1
        wrong = list(item.names)
        wrong[item.swapped] = item.swap
        for names, swapped in ((item.names, None), (tuple(wrong), item.swapped)):
            sentences = verify(written(names, item.pmids), item.evidence).sentences[1:]
            if len(sentences) != len(names):
                metrics.misread += 1
                continue
            if swapped is None:
                metrics.correct.update(s.verdict.value for s in sentences)
            else:
                metrics.swapped[sentences[swapped].verdict.value] += 1
        if progress is not None:
            progress(done, len(items))
    return metrics
