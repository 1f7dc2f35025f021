from __future__ import annotations

import subprocess
import sys

import pytest

from verifiers import Evidence
from verifiers.windows import Abbreviations, WindowSelector, build_windows, make_evidence

# SciFact corpus doc 1568684 (ODC-By), three of its sentences.
CDCA = make_evidence(
    "1568684",
    "The Bile Acid Chenodeoxycholic Acid Increases Human Brown Adipose Tissue Activity.",
    [
        "Here we examined the effects of oral supplementation of the bile acid "
        "chenodeoxycholic acid (CDCA) on human BAT activity.",
        "Treatment of 12 healthy female subjects with CDCA for 2 days resulted in increased BAT "
        "activity.",
        "Whole-body energy expenditure was also increased upon CDCA treatment.",
    ],
)
CLAIM = "Chenodeoxycholic acid treatment increases whole-body energy expenditure."


def test_make_evidence_offsets_from_sentences_and_from_text() -> None:
    for record in (CDCA, make_evidence("x", "t", CDCA.abstract)):
        assert len(record.sentences) == 3
        for sentence in record.sentences:
            assert record.abstract[sentence.start : sentence.end] == sentence.text


def test_a_listed_passage_is_cut_into_its_sentences() -> None:
    """A record's "sentence" can be a passage (a BioASQ snippet, a client's paragraph); the
    checks and the quote path must read its sentences, and the abstract stays as given.
    Sentences: PubMedQA (MIT), PMID 21849531."""
    passage = (
        "Mortality was higher in women than in men. After exclusion of high-risk patients, the "
        "SMR for CVD mortality remained increased in women.  "
    )
    record = make_evidence("21849531", "", [passage, "Mortality was not higher in men."])
    assert [s.text[:20] for s in record.sentences] == [
        "Mortality was higher",
        "After exclusion of h",
        "Mortality was not hi",
    ]
    assert record.abstract == f"{passage.strip()} Mortality was not higher in men."
    for sentence in record.sentences:
        assert record.abstract[sentence.start : sentence.end] == sentence.text


def test_windows_are_one_to_n_consecutive_sentences() -> None:
    windows = build_windows(CDCA, max_sentences=2)
    assert [(w.first, w.last) for w in windows] == [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]
    for window in windows:
        assert CDCA.abstract[window.start : window.end] == window.text


def test_the_abbreviation_detector_leaves_torch_unloaded_and_importable() -> None:
    # spaCy's thinc would import torch (215 MiB) for a pipeline that never runs it.
    code = (
        "import sys; from tests.verifiers.test_windows import CDCA; "
        "from verifiers.windows import Abbreviations; "
        "assert 'cdca' in Abbreviations().of(CDCA); "
        "assert 'torch' not in sys.modules, 'torch was loaded'; "
        "import torch; print(torch.tensor([1]).sum().item())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "1"


def test_abbreviations_defined_in_the_abstract_count_as_their_long_form() -> None:
    forms = Abbreviations().of(CDCA)
    assert forms["cdca"] >= {"chenodeoxycholic", "acid"}
    [best, *_] = WindowSelector(max_sentences=2).select([CLAIM], [[CDCA]])[0]
    assert best.text == "Whole-body energy expenditure was also increased upon CDCA treatment."
    [plain, *_] = WindowSelector(max_sentences=2, abbreviations=False).select([CLAIM], [[CDCA]])[0]
    assert plain.score < best.score


def test_caps_per_abstract_and_per_claim(evidence: list[Evidence]) -> None:
    selector = WindowSelector(per_abstract=2, max_windows=3)
    [chosen] = selector.select([CLAIM], [evidence])
    assert len(chosen) == 3
    assert chosen == sorted(chosen, key=lambda w: -w.score)
    assert chosen[0].pmid == "1568684"


def test_embedding_rerank_with_the_bundled_encoder() -> None:
    embed = pytest.importorskip("verifiers.embed")
    claim = "Calorie burning went up."  # no word in common: only the embeddings can tell
    [lexical] = WindowSelector(max_sentences=1).select([claim], [[CDCA]])
    assert all(w.score == 0.0 for w in lexical)
    [chosen] = WindowSelector(embed.Encoder(), max_sentences=1).select([claim], [[CDCA]])
    assert chosen[0].text.startswith("Whole-body energy expenditure")
    assert 0.0 < chosen[0].score <= 1.0
