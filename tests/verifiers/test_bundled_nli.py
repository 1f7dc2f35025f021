"""The shipped model, loaded as users load it, on real excerpts (tests/fixtures/nli_pairs.jsonl)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from verifiers import BundledNLI, NLILabel
from verifiers.nli import NLIBackend, NLIError, NLIPair, decide
from verifiers.nli.bundled import MODEL_DIR

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nli_pairs.jsonl"
CASES = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def nli() -> BundledNLI:
    return BundledNLI(threads=1)


def _param(case: dict[str, str]) -> object:
    # The model reads a changed dose as support (measured: P(entailment) 0.56-0.60); the
    # engine's deterministic numbers check covers doses. Strict, so a model that learns it fails
    # this marker and the expectation gets promoted.
    marks = (
        [pytest.mark.xfail(strict=True, reason="model misses changed doses")]
        if case["case"] == "changed dose"
        else []
    )
    return pytest.param(case, marks=marks, id=f"{case['case']}: {case['source']}")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_classifies_real_excerpts(nli: BundledNLI, case: dict[str, str]) -> None:
    (scores,) = nli.predict([NLIPair(premise=case["premise"], hypothesis=case["hypothesis"])])
    assert scores.label is NLILabel(case["expected"]), scores


def test_a_pairs_scores_do_not_depend_on_the_pairs_beside_it(nli: BundledNLI) -> None:
    # Dynamic int8 quantisation scales activations per ONNX run, so the default runs one pair
    # per run: a sentence verified while it streams and in a whole answer gets the same scores.
    pairs = [NLIPair(c["premise"], c["hypothesis"]) for c in CASES]
    together = nli.predict(pairs)
    alone = [nli.predict([p])[0] for p in pairs]
    assert together == alone
    assert all(s.entailment + s.neutral + s.contradiction == pytest.approx(1.0) for s in alone)


def test_larger_batches_keep_order_and_labels() -> None:
    # batch_size > 1 (a GPU, the cross-request batcher): probabilities move a little with the
    # batch's company (measured up to 0.07 with 14784792a400); labels must not.
    pairs = [NLIPair(c["premise"], c["hypothesis"]) for c in CASES]
    batched = BundledNLI(threads=1, batch_size=32).predict(pairs)
    singles = BundledNLI(threads=1).predict(pairs)
    for b, s in zip(batched, singles, strict=True):
        assert b.label is s.label
        assert b.entailment == pytest.approx(s.entailment, abs=0.08)
        assert b.contradiction == pytest.approx(s.contradiction, abs=0.08)


def test_windows_or_join_finds_the_deciding_window(nli: BundledNLI) -> None:
    support = CASES[0]
    windows = [CASES[2]["premise"], CASES[1]["premise"], support["premise"]]
    scores = nli.predict([NLIPair(w, support["hypothesis"]) for w in windows])
    decision = decide(scores, nli.thresholds)
    assert (decision.label, decision.window) == (NLILabel.ENTAILMENT, 2)


def test_long_claim_and_window_are_truncated_not_rejected(nli: BundledNLI) -> None:
    long = " ".join([CASES[0]["premise"]] * 30)
    (scores,) = nli.predict([NLIPair(long, long)])
    assert scores.entailment + scores.neutral + scores.contradiction == pytest.approx(1.0)


def test_empty_batch(nli: BundledNLI) -> None:
    assert nli.predict([]) == []


def test_is_an_nli_backend_with_a_versioned_model(nli: BundledNLI) -> None:
    assert isinstance(nli, NLIBackend)
    config = json.loads((MODEL_DIR / "nli_config.json").read_text(encoding="utf-8"))
    assert nli.version == config["version"]
    assert 0.0 < nli.thresholds.contradiction < 1.0 and 0.0 < nli.thresholds.entailment < 1.0


def test_shipped_files_match_their_hashes_and_fit_the_budget() -> None:
    config = json.loads((MODEL_DIR / "nli_config.json").read_text(encoding="utf-8"))
    for name, digest in config["sha256"].items():
        assert hashlib.sha256((MODEL_DIR / name).read_bytes()).hexdigest() == digest
    total = sum(p.stat().st_size for p in MODEL_DIR.iterdir() if p.is_file())
    assert total < 30_000_000
    assert (MODEL_DIR / "MODEL_CARD.md").is_file()


def test_missing_model_is_an_nli_error(tmp_path: Path) -> None:
    with pytest.raises(NLIError):
        BundledNLI(tmp_path)
