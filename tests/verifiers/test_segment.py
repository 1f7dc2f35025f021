from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.verifiers.checks.real_text import unsegmented
from verifiers.errors import UnsegmentedText
from verifiers.segment import (
    MAX_HELD_ITEMS,
    SentenceSpan,
    StreamSegmenter,
    require_covered,
    segment,
    words_outside,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verification"


def texts(text: str) -> list[str]:
    return [s.text for s in segment(text)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Patients received 2.5 mg/kg i.v. daily, e.g. in the morning.",
        "Smith et al. reported a benefit vs. placebo in 2019.",
        "The effect was significant (p < 0.05) as shown in Fig. 2 and Table 1.",
        "The HR was 0.74 (95% CI, 0.6-0.9; P = .002) at 12 wk.",
        "Viral load peaked at days 7 to 10 p.i. in all animals.",
        "Doses of 5 mg vs. 50 mg (i.e. a tenfold range) were compared.",
        # BioASQ ideal answers: an HGVS protein change, an inline enumeration after a colon.
        "It led to a truncated protein p.(Y650Sfs*22) in the STAG3 gene.",
        "Genes were involved in these pathways: 1) MEK/ERK, 2) PI3K/AKT, and 3) integrin.",
    ],
)
def test_hard_cases_stay_one_sentence(sentence: str) -> None:
    answer = f"{sentence} The next sentence follows."
    assert texts(answer) == [sentence, "The next sentence follows."]


def test_offsets_index_the_text() -> None:
    answer = "  Aspirin helps [PMID:1].\n\nIt is cheap (2.5 mg).  "
    for span in segment(answer):
        assert answer[span.start : span.end] == span.text


def test_text_pysbd_rewrites_still_reaches_a_sentence() -> None:
    # Factcheck-GPT's evidence (Apache-2.0): pysbd hands back "... M ?!" for "M ☉ .", and its
    # own offsets dropped that sentence, so its words reached no verdict; the "." it splits
    # off then matched the decimal point of "2.35".
    text = (
        "The most massive neutron star detected so far, PSR J0952\u20130607 , is estimated to be "
        "2.35 \u00b1 0.17 M \u2609 . [8] Neutron stars are small. They spin."
    )
    assert texts(text) == [
        "The most massive neutron star detected so far, PSR J0952\u20130607 , is estimated to be "
        "2.35 \u00b1 0.17 M \u2609 . [8]",
        "Neutron stars are small.",
        "They spin.",
    ]


def test_markdown_lists_and_headings_are_boundaries_without_markers() -> None:
    answer = (
        "## Findings\n"
        "Here is a summary:\n\n"
        "1. Aspirin reduced mortality\n"
        "2. Statins lower LDL [1]\n"
        "- **Metformin** is first line\n"
        "* Bullet with e.g. an abbreviation\n"
    )
    assert texts(answer) == [
        "Findings",
        "Here is a summary:",
        "Aspirin reduced mortality",
        "Statins lower LDL [1]",
        "**Metformin** is first line",
        "Bullet with e.g. an abbreviation",
    ]
    # Only the heading is one: the engine reads it as a label, not as a sentence.
    assert [span.heading for span in segment(answer)] == [True] + [False] * 5


def test_enumerations_inside_a_sentence_do_not_split() -> None:
    answer = "Two effects were seen: (i) lower LDL and (ii) fewer events. Done here."
    assert len(segment(answer)) == 2


def test_pubmedqa_abstract_matches_its_own_sentences() -> None:
    """A real abstract excerpt (PubMedQA, MIT) with "vs." , "p <" and decimals."""
    record = json.loads((FIXTURES / "segmentation.json").read_text())
    assert texts(" ".join(record["sentences"])) == record["sentences"]


def test_a_sentence_run_into_the_next_sections_heading_is_cut_there() -> None:
    """PubMed's text sometimes has no space between a sentence and the next section's heading
    (PubMedQA 21402341, MIT); pysbd sees no boundary there. A heading of capitals and a colon
    after a sentence's full stop starts a sentence; "Fig.A:" and "e.g. USA" do not."""
    background = (
        "Although selective and non-selective methods of preoperative carotid screening have "
        "been advocated, it remains unclear if this screening is clinically relevant."
    )
    aim = (
        "AIM: To test whether selective carotid screening is as effective as non-selective "
        "screening in detecting significant carotid disease."
    )
    assert texts(f"{background}{aim}") == [background, aim]
    assert texts("It works.PATIENTS AND METHODS: We did it.") == [
        "It works.",
        "PATIENTS AND METHODS: We did it.",
    ]
    assert texts("See Fig.A: the effect was large.") == ["See Fig.A: the effect was large."]


def test_citations_after_the_full_stop_stay_with_their_sentence() -> None:
    """Answers often cite after the full stop. pysbd opened the next sentence with the
    citation, which cited that sentence to this one's abstract and left this one uncited."""
    assert texts("Statins lower LDL. [PMID:123] They cut strokes. [PMID: 456, 789]") == [
        "Statins lower LDL. [PMID:123]",
        "They cut strokes. [PMID: 456, 789]",
    ]
    assert texts("Statins lower LDL.[1], [2] They cut strokes.[3][4]") == [
        "Statins lower LDL.[1], [2]",
        "They cut strokes.[3][4]",
    ]
    # pysbd sees no boundary after "3.[1]": the citation ends the sentence when a capital
    # follows.
    assert texts(
        "It fell by day 3.[1] This may help.[2] HP1 binds lysine 4.[PMID:9] Methylation."
    ) == [
        "It fell by day 3.[1]",
        "This may help.[2]",
        "HP1 binds lysine 4.[PMID:9]",
        "Methylation.",
    ]
    assert texts('It works. (PMID: 123) A quote. [PMID:1 "X. Y"] Next one.') == [
        "It works. (PMID: 123)",
        'A quote. [PMID:1 "X. Y"]',
        "Next one.",
    ]
    # An enumeration, a reference list on its own lines and a remark in brackets are no
    # citation of the sentence before them.
    assert texts("Two steps. (1) Take it. (2) Stop.") == ["Two steps.", "(1) Take it.", "(2) Stop."]
    assert texts("References:\n[1] Smith et al.") == ["References:", "[1] Smith et al."]
    assert texts("It works. [Note: in mice.] Next.")[0] == "It works."


def test_a_tables_header_row_is_a_heading_and_a_row_keeps_its_citation_cell() -> None:
    text = (
        "| Drug | Finding | Source |\n| --- | :-: | --- |\n"
        "| Aspirin | Aspirin cut strokes by 20%. | [PMID:123] |\n| Apixaban | It bled less. |"
    )
    spans = segment(text)
    assert [(s.text, s.heading) for s in spans] == [
        ("Drug | Finding | Source |", True),
        ("--- | :-: | --- |", False),
        ("Aspirin | Aspirin cut strokes by 20%. | [PMID:123] |", False),
        ("Apixaban | It bled less. |", False),
    ]
    # Without a delimiter row below it, a row is no header.
    assert not segment("| Drug | Finding |\n| Aspirin | cut strokes |")[0].heading


def test_stream_waits_for_a_citation_opened_after_the_full_stop() -> None:
    stream = StreamSegmenter()
    assert stream.feed("Statins lower LDL. [PMID: 12") == []  # the bracket may be this one's
    assert stream.feed("3] They cut") == [SentenceSpan("Statins lower LDL. [PMID: 123]", 0, 30)]
    assert [s.text for s in stream.flush()] == ["They cut"]
    stream = StreamSegmenter()
    assert stream.feed("It works. (PM") == []
    assert [s.text for s in stream.feed("ID: 9) Next one")] == ["It works. (PMID: 9)"]


STREAM_TEXT = (
    "Aspirin 2.5 mg/kg i.v. reduced mortality vs. placebo (p < 0.05) [PMID:123].RESULTS: It did. "
    "Smith et al. saw it in Fig. 2. [PMID: 456, 789] Here is a list:\n\n1. First item.[1], [2]\n"
    "2. Second item e.g. this.\n## Key findings\nThe end. (PMID: 9)\n\n"
    "| Drug | Finding |\n|:---|---:|\n| Aspirin | It cut strokes. | [PMID:1] |\n| B | C. |\nDone.\n"
    "It fell by day 3.[1] This may help.[2] Bye."
)


# Pieces that stress the segmenter's rules: markdown markers, citations and quotes, a code
# fence, abbreviations, and characters pysbd rewrites.
_PIECES = [*"ab Z1.,;:!?()[]\"'-*+#>|`\n\t\u2609\u00b5\u2026\u201c\u201d", "PMID:1", "e.g."]
_PIECES += ["Fig. 2", "\x1f", "```", "1. ", "- ", "**", "\n\n", '[PMID:1 "x y"]', "M \u2609 ."]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
@example("\x1f0. ")  # pysbd itself raised on it: int("\x1f0")
@example("a\u2609")  # pysbd rewrote it, and the sentence was dropped
def test_every_word_lies_in_a_sentence(text: str) -> None:
    # A word outside every sentence would reach the reader with no verdict at all.
    assert unsegmented(text) == ""


def test_words_outside_every_sentence_are_counted_and_never_quoted() -> None:
    """The second lock: were the segmenter ever to lose a sentence again (stop 57's placeholder
    characters), the engine refuses to verify the answer rather than pass its words."""
    text = "Intro:\n1. Aspirin halves stroke risk.\n2. ZEBRAQUUX cures it."
    spans = segment(text)
    assert words_outside(text, spans) == ""  # the numbered markers are no words
    lost = [s for s in spans if "ZEBRAQUUX" not in s.text]  # a segmenter that dropped one
    assert words_outside(text, lost) == "ZEBRAQUUXcuresit"
    with pytest.raises(UnsegmentedText) as raised:
        require_covered(text, lost, end=len(text))
    assert "16 letters and digits" in str(raised.value) and "ZEBRA" not in str(raised.value)
    # A stream checks what it emits as it emits it: up to the end of its last sentence.
    assert require_covered(text, spans[:2]) == spans[1].end
    assert require_covered(text, [], start=7) == 7


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=60))
def test_streaming_matches_offline_for_any_chunking(sizes: list[int]) -> None:
    stream = StreamSegmenter()
    emitted = []
    position = 0
    for size in sizes:
        emitted += stream.feed(STREAM_TEXT[position : position + size])
        position += size
    emitted += stream.feed(STREAM_TEXT[position:])
    emitted += stream.flush()
    assert emitted == segment(STREAM_TEXT)


def test_stream_holds_back_an_unfinished_sentence() -> None:
    stream = StreamSegmenter(closings=False)  # no wait for a citation at the paragraph's end
    assert stream.feed("The dose was 2.") == []
    assert stream.feed("5 mg daily. The") == []  # "The" alone cannot settle the boundary
    done = stream.feed(" effect was large.")
    assert [s.text for s in done] == ["The dose was 2.5 mg daily."]
    assert [s.text for s in stream.flush()] == ["The effect was large."]


LIST_ANSWER = (
    "In asthma, CD4(+) T cells express the CX3CL1 receptor:\n"
    "- CX3CR1. It is upregulated on allergen challenge.\n"
    "- CCR7 [PMID:21366394]\n"
    "  a lazy continuation line\n\n"
    "Here are the sources [PMID:1]:\n"
    "1. PMID 21366394\n"
    "## Notes:\n"
    "- no lead after a heading\n"
)


def test_a_list_items_lead_is_the_line_that_introduced_its_list() -> None:
    """Items of a list are marked as such and carry the line before the list that ends in a
    colon (citations after it or not); a heading or any other sentence closes the list."""
    spans = segment(LIST_ANSWER)
    assert [(s.text, s.list_item, s.lead) for s in spans] == [
        ("In asthma, CD4(+) T cells express the CX3CL1 receptor:", False, ""),
        ("CX3CR1.", True, "In asthma, CD4(+) T cells express the CX3CL1 receptor:"),
        ("It is upregulated on allergen challenge.", True, spans[0].text),
        ("CCR7 [PMID:21366394]", True, spans[0].text),
        ("a lazy continuation line", True, spans[0].text),
        ("Here are the sources [PMID:1]:", False, ""),
        ("PMID 21366394", True, "Here are the sources [PMID:1]:"),
        ("Notes:", False, ""),
        ("no lead after a heading", True, ""),
    ]


def test_a_streamed_list_keeps_its_lead_and_items_at_every_split() -> None:
    """Split anywhere (twice), a stream marks the same items with the same leads: an item's
    second sentence and a lazy continuation line stay in the item when the stream resumes
    inside it."""
    whole = segment(LIST_ANSWER)
    for first in range(len(LIST_ANSWER) + 1):
        for second in range(first, len(LIST_ANSWER) + 1, 5):
            stream = StreamSegmenter()
            got = stream.feed(LIST_ANSWER[:first]) + stream.feed(LIST_ANSWER[first:second])
            got += stream.feed(LIST_ANSWER[second:]) + stream.flush()
            assert got == whole, (first, second)


CITED_AT_THE_END = (
    "Drugs that lower HbA1c:\n"
    "- metformin\n"
    "- insulin. It is given by injection.\n"
    "- sulfonylureas [PMID:1]\n"
    "## Cited on a line after the list\n"
    "- metformin\n"
    "- insulin\n\n"
    "[PMID:1] [PMID:2]\n"
    "## Cited item by item\n"
    "- metformin [PMID:1]\n"
    "- insulin\n"
    "- sulfonylureas [PMID:2]\n"
    "## Too long to wait for\n"
    + "".join(f"- drug {n}\n" for n in range(MAX_HELD_ITEMS))
    + "- drug 99 [PMID:3]\n"
)


def test_a_list_cited_once_at_its_end_lends_its_items_that_citation() -> None:
    """The uncited items of a list whose only citation is its last item's, or a line of
    citations right after it, carry that item or line (``closing``); a list cited item by item,
    or too long for a stream to hold its verdicts back, keeps its items as written."""
    spans = segment(CITED_AT_THE_END)
    closings = [(s.text, s.closing) for s in spans if s.closing]
    assert closings == [
        ("metformin", "sulfonylureas [PMID:1]"),
        ("insulin.", "sulfonylureas [PMID:1]"),
        ("It is given by injection.", "sulfonylureas [PMID:1]"),
        ("metformin", "[PMID:1] [PMID:2]"),
        ("insulin", "[PMID:1] [PMID:2]"),
    ]
    assert not any(s.closing for s in spans if "drug" in s.text)


CITED_PARAGRAPHS = (
    "Metformin is first-line. It lowers hepatic glucose output [PMID:1].\n\n"
    "Insulin is given by injection. It can cause hypoglycaemia.\n\n"
    "[PMID:2] [PMID:3]\n\n"
    "Sulfonylureas raise insulin release. They cause weight gain.\n"
    "[PMID:3]\n"
    "## Cited sentence by sentence\n"
    "Acarbose slows digestion [PMID:1]. It causes flatulence. It is taken with meals [PMID:2].\n"
    "- SGLT2 inhibitors cause glycosuria. They lower weight [PMID:4]\n"
    "- GLP-1 agonists slow gastric emptying [PMID:5]\n\n"
    "Great question. Statins lower LDL [PMID:6].\n"
    "## Too long to wait for\n"
    + "".join(f"Drug {n} lowers glucose. " for n in range(MAX_HELD_ITEMS))
    + "Drug 99 lowers glucose [PMID:7].\n"
)


def test_a_paragraph_cited_once_at_its_end_lends_its_sentences_that_citation() -> None:
    """The uncited sentences of a paragraph (or of one list item) whose only citation is its
    last sentence's, or a line of citations after it, carry that sentence or line; a paragraph
    cited sentence by sentence, or too long to wait for, keeps its sentences as written."""
    spans = segment(CITED_PARAGRAPHS)
    closings = [(s.text, s.closing) for s in spans if s.closing]
    assert closings == [
        ("Metformin is first-line.", "It lowers hepatic glucose output [PMID:1]."),
        ("Insulin is given by injection.", "[PMID:2] [PMID:3]"),
        ("It can cause hypoglycaemia.", "[PMID:2] [PMID:3]"),
        ("Sulfonylureas raise insulin release.", "[PMID:3]"),
        ("They cause weight gain.", "[PMID:3]"),
        ("SGLT2 inhibitors cause glycosuria.", "They lower weight [PMID:4]"),
        ("Great question.", "Statins lower LDL [PMID:6]."),
    ]
    assert len({s.block for s in spans if s.text.startswith("Drug ")}) == 1
    assert [s.block for s in spans[:2]] == [0, 0]


@pytest.mark.parametrize("text", [CITED_AT_THE_END, CITED_PARAGRAPHS], ids=["list", "paragraph"])
def test_a_stream_gives_the_same_closings_at_every_split(text: str) -> None:
    """Split anywhere (twice), a stream gives every sentence the same closing and block as the
    whole text: an open list's items, or an open paragraph's sentences, wait until it ends, and
    go out then, in order. The second split falls at every position as the first moves (one,
    two and three characters after it), and a sentence, a paragraph and the rest of the text
    after it: each stream segments the whole text, so every pair of positions would take
    minutes."""
    whole = segment(text)
    for first in range(0, len(text) + 1, 3):
        for second in sorted({min(first + k, len(text)) for k in (0, 1, 2, 3, 29, 97, len(text))}):
            stream = StreamSegmenter()
            got = stream.feed(text[:first]) + stream.feed(text[first:second])
            got += stream.feed(text[second:]) + stream.flush()
            assert got == whole, (first, second)


def test_a_stream_holds_a_paragraph_only_while_it_may_be_cited_at_its_end() -> None:
    """An open paragraph that cites nothing yet waits; one whose sentence cites before its last
    goes out sentence by sentence, and so does every sentence with ``closings=False``."""
    stream = StreamSegmenter()
    assert stream.feed("Metformin is first-line. It lowers glucose. It is ch") == []
    assert [s.text for s in stream.feed("eap [PMID:1]. It is old. It is s")] == [
        "Metformin is first-line.",
        "It lowers glucose.",
        "It is cheap [PMID:1].",
        "It is old.",
    ]
    stream = StreamSegmenter(closings=False)
    assert [s.text for s in stream.feed("Metformin is first-line. It lowers glucose. It is")] == [
        "Metformin is first-line.",
        "It lowers glucose.",
    ]


def test_a_stream_holds_a_lists_items_only_while_it_may_be_cited_at_its_end() -> None:
    """An open list that cites nothing yet waits for its end; one cited item by item goes out
    item by item, as does a list past ``MAX_HELD_ITEMS``."""
    stream = StreamSegmenter()
    assert stream.feed("Drugs:\n- metformin\n- insulin\n- sulfonylureas [PMID:1]\n- ") == [
        SentenceSpan("Drugs:", 0, 6)
    ]
    released = stream.feed(
        "acarbose\n\nThey all lower HbA1c. More to come"
    )  # cited, then not: as is
    assert [(s.text, s.closing) for s in released] == [
        ("metformin", ""),
        ("insulin", ""),
        ("sulfonylureas [PMID:1]", ""),
        ("acarbose", ""),
    ]  # the paragraph after the list waits: it may yet be cited at its end
    assert [(s.text, s.closing) for s in stream.feed(" [PMID:2].\n\nNext one. And so")] == [
        ("They all lower HbA1c.", "More to come [PMID:2]."),
        ("More to come [PMID:2].", ""),
    ]
    stream = StreamSegmenter()
    done = stream.feed("- metformin [PMID:1]\n- insulin\n- acarbose\n- sulf")
    assert [s.text for s in done] == ["metformin [PMID:1]", "insulin", "acarbose"]
    stream = StreamSegmenter()
    items = "".join(f"- drug {n}\n" for n in range(MAX_HELD_ITEMS + 2))
    assert len(stream.feed(items)) == MAX_HELD_ITEMS + 1  # the last may still grow


def test_a_sentence_cut_for_its_length_stays_in_its_block() -> None:
    """An open sentence longer than ``max_sentence_chars`` goes out in pieces; each is in the
    list item (or paragraph) the sentence is in, so a closing reaches every piece."""
    stream = StreamSegmenter(max_sentence_chars=50)
    got = stream.feed("Drugs:\n\n- " + "metformin lowers glucose " * 6) + stream.flush()
    first, *pieces = got
    assert first.text == "Drugs:" and len(pieces) > 1 and all(s.list_item for s in pieces)
    assert {s.block for s in pieces} == {len("Drugs:\n\n")}
