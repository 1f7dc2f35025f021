"""The same correct answers written the ways LLMs write them (``veriproxy eval shapes``).

``veriproxy eval answers`` writes every cited sentence one way: ``text [PMID:123].``. Answers
users meet come as bullet lists (with or without full stops, opened by a label in bold), with
words in bold, as a table's rows, under markdown headings, with the citation after the full stop
(``text. [PMID:123]``, ``text.[1]``), a list cited once (in the line that introduces it, in
its last item, or in a line after it), a paragraph cited once (in its last sentence, or in a
line after it), opened by an introducer ("Here is what the evidence
shows: ..."), a lead-in ("Please note that ...") or talk run on into them ("I'm not a doctor
but ..."). The words a reader checks are the same, so their verdicts should be too. Each
held-out answer is verified once per shape; per shape the
figures are the share of the answer's sentences called ``supported``, those called ``uncited``
or not judged at all (``not_checkworthy``: a finding that went out unverified), those whose
verdicts differ from the plain rendering's, and the added label lines (a heading, an
introducing line) that got a verdict of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from verifiers._types import Evidence, ResponseReport, Verdict
from verifiers.eval.answers import AnswerItem, sentences_in

Verify = Callable[[str, Sequence[Evidence]], ResponseReport]

# A rendered answer: its text, each answer sentence's span in it, and the spans of the label
# lines the shape added (which should not be judged).
Rendering = tuple[str, list[tuple[int, int]], list[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class _Line:
    """One answer sentence as a shape writes it: what comes before its own words, its
    citation, and what joins it to the next."""

    before: str
    body: str
    after: str


def _render(lines: Sequence[_Line], heading: str = "", joiner: str = " ") -> Rendering:
    text, spans, labels = "", [], []
    if heading:
        labels.append((heading.index(" ") + 1, heading.index("\n")))
        text = heading
    for i, line in enumerate(lines):
        if i:
            text += joiner
        start = len(text)
        text += f"{line.before}{line.body}{line.after}"
        spans.append((start, len(text)))
    return text, spans, labels


def _body(sentence: str) -> str:
    return sentence.rstrip().rstrip(".")


def _cited(item: AnswerItem, i: int) -> str:
    return f"[PMID:{item.pmids[i]}]"


def _numbered(item: AnswerItem, i: int) -> str:
    order = [ev.pmid for ev in item.evidence]
    return f"[{order.index(item.pmids[i]) + 1}]"


def plain(item: AnswerItem) -> Rendering:
    """``text [PMID:123].`` (what ``eval answers`` verifies)."""
    return _render(
        [_Line("", _body(s), f" {_cited(item, i)}.") for i, s in enumerate(item.sentences)]
    )


def after_full_stop(item: AnswerItem) -> Rendering:
    """``text. [PMID:123]``"""
    return _render(
        [_Line("", _body(s), f". {_cited(item, i)}") for i, s in enumerate(item.sentences)]
    )


def numbered_after_full_stop(item: AnswerItem) -> Rendering:
    """``text.[1]``: numbered references to the evidence as injected."""
    return _render(
        [_Line("", _body(s), f".{_numbered(item, i)}") for i, s in enumerate(item.sentences)]
    )


_INTRO = "Here is what the evidence shows"


def _every_record(item: AnswerItem) -> str:
    """Citations of every record the answer rests on, once each: "[PMID:1] [PMID:2]"."""
    return " ".join(f"[PMID:{pmid}]" for pmid in dict.fromkeys(item.pmids))


def _introduced(intro: str, lines: Sequence[_Line]) -> Rendering:
    """``lines`` as list items, one per line, under the line ``intro`` (a label line)."""
    intro += "\n"
    text, spans, _ = _render(lines, joiner="\n")
    shifted = [(a + len(intro), b + len(intro)) for a, b in spans]
    return intro + text, shifted, [(0, len(intro) - 1)]


def bullets(item: AnswerItem) -> Rendering:
    """``- text [PMID:123].`` one per line, under a line that introduces them."""
    return _introduced(
        f"{_INTRO}:",
        [_Line("- ", _body(s), f" {_cited(item, i)}.") for i, s in enumerate(item.sentences)],
    )


def cited_lead(item: AnswerItem) -> Rendering:
    """``- text.`` one per line, uncited, under a line that cites every record they rest on:
    "Here is what the evidence shows [PMID:1] [PMID:2]:"."""
    return _introduced(
        f"{_INTRO} {_every_record(item)}:", [_Line("- ", _body(s), ".") for s in item.sentences]
    )


def cited_last_item(item: AnswerItem) -> Rendering:
    """``- text.`` one per line, under a line that introduces them, uncited but the last, which
    cites every record they rest on: "- text [PMID:1] [PMID:2]."."""
    last = len(item.sentences) - 1
    return _introduced(
        f"{_INTRO}:",
        [
            _Line("- ", _body(s), f" {_every_record(item)}." if i == last else ".")
            for i, s in enumerate(item.sentences)
        ],
    )


def cited_after_list(item: AnswerItem) -> Rendering:
    """``- text.`` one per line, uncited, then a blank line and a line that cites every record
    they rest on: "[PMID:1] [PMID:2]"."""
    cites = _every_record(item)
    text, spans, _ = _render([_Line("- ", _body(s), ".") for s in item.sentences], joiner="\n")
    return f"{text}\n\n{cites}", spans, [(len(text) + 2, len(text) + 2 + len(cites))]


def cited_paragraph_end(item: AnswerItem) -> Rendering:
    """``text. text [PMID:1] [PMID:2].``: one paragraph, uncited but its last sentence, which
    cites every record the answer rests on."""
    last = len(item.sentences) - 1
    return _render(
        [
            _Line("", _body(s), f" {_every_record(item)}." if i == last else ".")
            for i, s in enumerate(item.sentences)
        ]
    )


def cited_after_paragraph(item: AnswerItem) -> Rendering:
    """``text. text.``, uncited, then a blank line and a line that cites every record the
    answer rests on: "[PMID:1] [PMID:2]"."""
    cites = _every_record(item)
    text, spans, _ = _render([_Line("", _body(s), ".") for s in item.sentences])
    return f"{text}\n\n{cites}", spans, [(len(text) + 2, len(text) + 2 + len(cites))]


def bullets_without_full_stop(item: AnswerItem) -> Rendering:
    """``- text [PMID:123]`` one per line, no full stop anywhere (how list items are often
    written)."""
    return _render(
        [_Line("- ", _body(s), f" {_cited(item, i)}") for i, s in enumerate(item.sentences)],
        joiner="\n",
    )


def bold_labels(item: AnswerItem) -> Rendering:
    """``- **Key finding:** text [PMID:123].``: each item opened by a label in bold."""
    return _render(
        [
            _Line("- **Key finding:** ", _body(s), f" {_cited(item, i)}.")
            for i, s in enumerate(item.sentences)
        ],
        joiner="\n",
    )


def bold_words(item: AnswerItem) -> Rendering:
    """``**First two** words of each sentence in bold, the rest plain [PMID:123].``"""
    return _render(
        [
            _Line("", _emphasised(_body(s)), f" {_cited(item, i)}.")
            for i, s in enumerate(item.sentences)
        ]
    )


def _emphasised(body: str) -> str:
    words = body.split(" ")
    return " ".join([f"**{' '.join(words[:2])}**", *words[2:]]) if len(words) > 3 else body


def table(item: AnswerItem) -> Rendering:
    """A markdown table, one row per sentence: ``| text | [PMID:123] |`` under the header
    ``| Finding | Source |``."""
    header = "| Finding | Source |\n|---|---|\n"
    text, spans, _ = _render(
        [_Line("| ", _body(s), f". | {_cited(item, i)} |") for i, s in enumerate(item.sentences)],
        joiner="\n",
    )
    shifted = [(a + len(header), b + len(header)) for a, b in spans]
    return header + text, shifted, [(2, header.index("\n"))]


def under_heading(item: AnswerItem) -> Rendering:
    """``## Key findings`` and a blank line before the plain answer."""
    return _render(
        [_Line("", _body(s), f" {_cited(item, i)}.") for i, s in enumerate(item.sentences)],
        heading="## Key findings\n\n",
    )


def lead_ins(item: AnswerItem) -> Rendering:
    """The first sentence after "Based on the provided abstracts, ", the others after "Please
    note that " (a capital kept: it may be a name's)."""
    leads = ["Based on the provided abstracts, "] + ["Please note that "] * len(item.sentences)
    return _render(
        [_Line(leads[i], _body(s), f" {_cited(item, i)}.") for i, s in enumerate(item.sentences)]
    )


def run_on_talk(item: AnswerItem) -> Rendering:
    """The first sentence after "I'm not a doctor but ", the others after "I cannot stress
    enough that ": talk run on into the finding with no comma (a capital kept)."""
    talk = ["I'm not a doctor but "] + ["I cannot stress enough that "] * len(item.sentences)
    return _render(
        [_Line(talk[i], _body(s), f" {_cited(item, i)}.") for i, s in enumerate(item.sentences)]
    )


SHAPES: dict[str, Callable[[AnswerItem], Rendering]] = {
    "plain": plain,
    "after_full_stop": after_full_stop,
    "numbered_after_full_stop": numbered_after_full_stop,
    "bullets": bullets,
    "bullets_without_full_stop": bullets_without_full_stop,
    "cited_lead": cited_lead,
    "cited_last_item": cited_last_item,
    "cited_after_list": cited_after_list,
    "cited_paragraph_end": cited_paragraph_end,
    "cited_after_paragraph": cited_after_paragraph,
    "bold_labels": bold_labels,
    "bold_words": bold_words,
    "table": table,
    "under_heading": under_heading,
    "lead_ins": lead_ins,
    "run_on_talk": run_on_talk,
}


@dataclass(slots=True)
class ShapeMetrics:
    """One shape's figures over all answers."""

    sentences: int = 0
    supported: int = 0
    unjudged: int = 0  # no verdict but not_checkworthy: the sentence went out unverified
    uncited: int = 0
    differs: int = 0  # verdicts other than the plain rendering's
    labels: int = 0
    labels_judged: int = 0  # a heading or introducing line given a verdict

    def as_dict(self) -> dict[str, object]:
        n = max(self.sentences, 1)
        return {
            "sentences": self.sentences,
            "supported_rate": round(self.supported / n, 4),
            "unjudged": self.unjudged,
            "uncited": self.uncited,
            "differs_from_plain": self.differs,
            "label_lines": self.labels,
            "label_lines_judged": self.labels_judged,
        }


@dataclass(slots=True)
class ShapeComparison:
    items: int = 0
    shapes: dict[str, ShapeMetrics] = field(
        default_factory=lambda: {name: ShapeMetrics() for name in SHAPES}
    )

    def as_dict(self) -> dict[str, object]:
        return {"items": self.items} | {
            name: metrics.as_dict() for name, metrics in self.shapes.items()
        }


def _verdicts(report: ResponseReport, span: tuple[int, int]) -> frozenset[Verdict]:
    return frozenset(s.verdict for s in sentences_in(report, span))


def compare_shapes(
    verify: Verify,
    items: Sequence[AnswerItem],
    progress: Callable[[int, int], None] | None = None,
) -> ShapeComparison:
    """Every item verified once per shape (see the module's docstring)."""
    result = ShapeComparison(items=len(items))
    for n, item in enumerate(items, start=1):
        written: list[frozenset[Verdict]] = []
        for name, shape in SHAPES.items():
            text, spans, labels = shape(item)
            report = verify(text, item.evidence)
            metrics = result.shapes[name]
            verdicts = [_verdicts(report, span) for span in spans]
            if name == "plain":
                written = verdicts
            for got, plain_got in zip(verdicts, written, strict=True):
                metrics.sentences += 1
                metrics.supported += got == {Verdict.SUPPORTED}
                metrics.uncited += Verdict.UNCITED in got
                metrics.unjudged += got <= {Verdict.NOT_CHECKWORTHY}
                metrics.differs += got != plain_got
            for label in labels:
                metrics.labels += 1
                metrics.labels_judged += not _verdicts(report, label) <= {Verdict.NOT_CHECKWORTHY}
        if progress is not None:
            progress(n, len(items))
    return result
