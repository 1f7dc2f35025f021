"""The streaming quote stripper: however an answer is cut into deltas, what it releases (and the
quotes it takes out, with their offsets) is exactly ``strip_quotes`` on the whole answer, and it
holds back nothing but a bracket that may be a citation. Answers are written on real abstracts
(PubMedQA 12442934 and SciFact corpus excerpts), quoting their sentences."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from verifiers import StrippedQuote
from verifiers.fold import fold
from verifiers.quoting import MAX_BRACKET_CHARS, QuoteStripper, Stripped, strip_quotes
from verifiers.quoting.stream import as_written

FIXTURES = Path(__file__).parents[2] / "fixtures"
PUBMEDQA = json.loads((FIXTURES / "pubmedqa_12442934.json").read_text(encoding="utf-8"))
SCIFACT = [
    json.loads(line)
    for line in (FIXTURES / "scifact_excerpt.jsonl").read_text(encoding="utf-8").splitlines()
]


def _sentence(abstract: str, containing: str) -> str:
    """The words of ``abstract`` from ``containing`` to the end of its sentence."""
    start = abstract.index(containing)
    return abstract[start : abstract.index(".", start + len(containing))]


def _answers() -> list[str]:
    pmid, text = PUBMEDQA["pmid"], PUBMEDQA["text"]
    loss = _sentence(text, "The perioperative blood loss increased")
    spinal = _sentence(text, "All patients were injected intrathecally")
    fifty = _sentence(text, "Fifty patients")
    first = SCIFACT[0]
    survey = " ".join(first["abstract"][4].split())[:120]
    answers = [
        # straight and curly quotes, a colon before the quote, a plain and a numbered citation
        f'Ibuprofen before hip surgery raised blood loss [PMID:{pmid} "{loss}"]. '
        f"Both groups had spinal anaesthesia [PMID {pmid}: \u201c{spinal}\u201d]. "
        f"Blood loss was 1161 mL with ibuprofen [1], as [PMID:{pmid}] reports [a].",
        # full-width brackets and colon, a zero-width space inside PMID, an ellipsis
        f"Fifty patients took part \uff3bPMID\uff1a{pmid} \u201c{fifty}\u201d\uff3d. "
        f'The trial was double blind [P\u200bMID:{pmid} "allocated to two groups ... '
        f'double blind"] and [see [PMID:{pmid} "randomized manner"]].',
        # several PMIDs in one bracket, one quote each and a shared one; a line break
        f'Abnormal prion protein was common [PMID:{first["doc_id"]} "{survey}"; '
        f'PMID:{pmid} "{loss}"].\n[1\nA list item. [PMID:1, PMID:{pmid} "{fifty}"] ends it.',
        # lone surrogates and a bracket that never closes
        f'Odd text \ud800 [PMID:{pmid} "{spinal}"] and \udfff then [PMID:{pmid} "{loss}',
    ]
    return answers


ANSWERS = _answers()


def test_the_rewritten_brackets_put_back_give_the_answer_as_written() -> None:
    rng = random.Random(31)
    for answer in ANSWERS:
        for _ in range(50):
            cuts = sorted(rng.sample(range(1, len(answer)), rng.randint(1, 30)))
            pieces = [answer[a:b] for a, b in zip([0, *cuts], [*cuts, len(answer)], strict=True)]
            stripper = QuoteStripper()
            out = [stripper.feed(p) for p in pieces] + [stripper.flush()]
            visible = "".join(s.text for s in out)
            rewritten = [b for s in out for b in s.rewritten]
            assert visible != answer and as_written(visible, 0, rewritten) == answer, cuts
            # From the end of the first bracket on: the rest of the answer, as written.
            at = rewritten[0].end
            assert answer.endswith(as_written(visible[at:], at, rewritten)), cuts
            # A bracket cut by the offset stays as the client read it.
            inside = rewritten[0].end - 1
            assert as_written(visible[inside:], inside, rewritten[:1]) == visible[inside:]


def _stream(pieces: list[str]) -> tuple[str, tuple[StrippedQuote, ...]]:
    stripper = QuoteStripper()
    out: list[Stripped] = [stripper.feed(p) for p in pieces]
    out.append(stripper.flush())
    return "".join(s.text for s in out), tuple(q for s in out for q in s.quotes)


@pytest.mark.parametrize("answer", ANSWERS, ids=range(len(ANSWERS)))
def test_every_single_cut_gives_what_strip_quotes_gives(answer: str) -> None:
    expected = strip_quotes(answer)
    assert expected[1], "each answer quotes something"
    for cut in range(len(answer) + 1):
        assert _stream([answer[:cut], answer[cut:]]) == expected, cut


@pytest.mark.parametrize("answer", ANSWERS, ids=range(len(ANSWERS)))
def test_character_by_character_and_random_cuts_give_what_strip_quotes_gives(
    answer: str,
) -> None:
    expected = strip_quotes(answer)
    assert _stream(list(answer)) == expected
    rng = random.Random(30)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(answer)), rng.randint(2, 40)))
        pieces = [answer[a:b] for a, b in zip([0, *cuts], [*cuts, len(answer)], strict=True)]
        assert _stream(pieces) == expected, cuts


def test_quote_offsets_point_at_the_bare_bracket_in_the_visible_text() -> None:
    visible, quotes = _stream(list(ANSWERS[0]))
    pmid = PUBMEDQA["pmid"]
    assert [visible[q.start : q.end] for q in quotes] == [f"[PMID:{pmid}]", f"[PMID {pmid}]"]
    assert all(q.quote in PUBMEDQA["text"] for q in quotes)
    assert '"' not in visible and "\u201c" not in visible


@pytest.mark.parametrize("answer", ANSWERS, ids=range(len(ANSWERS)))
def test_only_a_bracket_that_may_be_a_citation_is_held(answer: str) -> None:
    stripper = QuoteStripper()
    for char in answer:
        stripper.feed(char)
        held = stripper.held
        if held:
            assert fold(held).text.startswith("["), repr(held)
            assert "]" not in fold(held).text[1:] or held.count("[") > 1, repr(held)
            assert len(held) <= MAX_BRACKET_CHARS


def test_text_without_a_citation_bracket_is_never_delayed() -> None:
    stripper = QuoteStripper()
    text = "Fever [a] fell (n = 12) in [x] days; [ ] and [Pa] are prose."
    released = ""
    for at, char in enumerate(text, 1):
        released += stripper.feed(char).text
        # Only "[", "[ " and "[P" wait, each for the character that decides them.
        assert stripper.held in ("", "[", "[ ", "[P"), at
        assert released + stripper.held == text[:at]
    assert _stream(list(text)) == (text, ())
    assert QuoteStripper().feed("[a").text == "[a"
    assert QuoteStripper().feed("[Pa").text == "[Pa"
    assert QuoteStripper().feed("[1").text == ""


def test_plain_citations_are_held_only_until_their_bracket_closes() -> None:
    stripper = QuoteStripper()
    assert stripper.feed("Aspirin works [PMI").text == "Aspirin works "
    assert stripper.feed("D:12").text == ""
    assert stripper.feed("3] well").text == "[PMID:123] well"
    assert stripper.feed(" [1] [2").text == " [1] "
    assert stripper.feed("]").text == "[2]"


def test_a_bracket_that_never_closes_is_released_unchanged_at_the_bound() -> None:
    stripper = QuoteStripper()
    opening = '[PMID:12442934 "' + "blood loss increased " * 40
    released = ""
    for char in opening:
        released += stripper.feed(char).text
        assert len(stripper.held) <= MAX_BRACKET_CHARS
    assert released.startswith(opening[: len(opening) - MAX_BRACKET_CHARS + 1])
    assert released + stripper.held == opening
    assert released + stripper.flush().text == opening


def test_a_line_break_after_the_id_releases_the_bracket() -> None:
    stripper = QuoteStripper()
    assert stripper.feed("Steps: [1").text == "Steps: "
    assert stripper.feed(" take it\nthen").text == "[1 take it\nthen"
    # Before the id a line break may still belong to the bracket.
    assert QuoteStripper().feed("[\nPMID").text == ""


def test_a_nested_citation_inside_a_bracket_that_is_not_one() -> None:
    text = 'Noted [see [PMID:12442934 "blood loss"] too] here.'
    assert _stream([text]) == strip_quotes(text)
    assert _stream(list(text))[0] == "Noted [see [PMID:12442934] too] here."


def test_lone_surrogates_pass_through_in_place() -> None:
    text = 'A \ud800 b [PMID:12442934 "blood \udfff loss"] c \udc00.'
    visible, quotes = _stream(list(text))
    assert (visible, quotes) == strip_quotes(text)
    assert visible == "A \ud800 b [PMID:12442934] c \udc00."
    assert quotes[0].quote == "blood \udfff loss"


@pytest.mark.parametrize("extra", [-1, 0, 1, 200])
def test_a_bracket_at_the_bound_is_stripped_alike_whole_and_streamed(extra: int) -> None:
    # Two quotes in one bracket make it long; past MAX_BRACKET_CHARS neither reads it.
    first = "word " * 55
    head = '[PMID:1 "' + first.strip() + '"; PMID:2 "'
    tail = '"]'
    fill = MAX_BRACKET_CHARS - len(head) - len(tail) + extra
    answer = f"Claim {head}{'x' * max(fill, 1)}{tail}. Next sentence."
    whole = strip_quotes(answer)
    assert _stream(list(answer)) == whole
    assert (whole[1] == ()) is (extra > 0)
