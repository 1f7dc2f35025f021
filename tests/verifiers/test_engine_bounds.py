"""The engine's bounds: a whole answer stops at its deadline (the calling thread is free again),
a stream that never ends a sentence still yields sentences, lone surrogates are read as
U+FFFD, and segmentation costs linear time on text that makes pysbd quadratic."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from verifiers import Evidence
from verifiers.engine import Verifier
from verifiers.nli.hf_backend import HFNLI
from verifiers.segment import StreamSegmenter, _pieces, segment
from verifiers.windows import WindowSelector, make_evidence


@pytest.fixture(scope="module")
def verifier(tmp_path_factory: pytest.TempPathFactory, tiny_model: Callable[..., Path]) -> Verifier:
    path = tiny_model(
        tmp_path_factory.mktemp("tiny"),
        {0: "contradiction", 1: "entailment", 2: "neutral"},
        "neutral",
    )
    return Verifier(HFNLI(path, threads=1), selector=WindowSelector())


EVIDENCE = [make_evidence("1", "Metformin", "Metformin lowers HbA1c in adults with diabetes.")]


def test_verify_stops_at_its_deadline(verifier: Verifier) -> None:
    answer = " ".join(f"Metformin lowers HbA1c by {i} percent [PMID:1]." for i in range(2000))
    report = verifier.verify(answer, EVIDENCE, seconds=0.0)
    assert report.error is not None and "(0 of 2000 sentences verified)" in report.error


def test_verify_within_its_deadline_is_verified(verifier: Verifier) -> None:
    report = verifier.verify("Metformin lowers HbA1c [PMID:1].", EVIDENCE, seconds=60)
    assert report.error is None
    assert len(report.sentences) == 1


def test_lone_surrogates_are_read_as_replacement_characters(verifier: Verifier) -> None:
    report = verifier.verify("Metformin \ud800 lowers HbA1c [PMID:1].", EVIDENCE)
    assert report.sentences[0].text == "Metformin \ufffd lowers HbA1c [PMID:1]."
    stream = verifier.stream(EVIDENCE)
    stream.feed("Metformin \udc00 lowers HbA1c. ")
    assert "\ufffd" in stream.finish().sentences[0].text


def test_a_stream_without_sentence_ends_yields_bounded_sentences() -> None:
    segmenter = StreamSegmenter(max_sentence_chars=200)
    out = []
    for _ in range(2000):
        out += segmenter.feed("metformin lowers hba1c ")
    assert out and all(len(s.text) <= 200 for s in out)
    assert out[0].start == 0 and out[1].start >= out[0].end


def test_long_blocks_reach_pysbd_in_bounded_pieces() -> None:
    # pysbd is quadratic on "e.g. e.g. …": 40,000 characters in one block took ~15 s, in
    # pieces of at most 4,000 about 1 s. Its input is bounded, so the time is linear.
    text = "e.g. " * 8000
    pieces = _pieces(text, 0, len(text))
    assert all(end - start <= 4000 for start, end in pieces)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
    assert segment(text)


def test_evidence_from_sentences_is_unchanged(verifier: Verifier) -> None:
    ev: Evidence = make_evidence("2", "T", ["One finding.", "Another finding."])
    assert [s.text for s in ev.sentences] == ["One finding.", "Another finding."]
