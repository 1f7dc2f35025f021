"""Cross-request micro-batching over the real bundled model: callers get their own scores, in
order; concurrent callers share batches; a big answer cannot starve a small one; a failing
backend fails every caller of the batch."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
import respx

from verifiers import Verifier, make_evidence
from verifiers.config import verifier_config
from verifiers.nli import NLIError, NLIPair, NLIScores
from verifiers.nli.batching import BatchingNLI, BatchOptions
from verifiers.nli.bundled import BundledNLI
from verifiers.nli.registry import create_backend

PREMISE = (
    "Whole-body energy expenditure was increased upon CDCA treatment, and brown adipose tissue "
    "activity rose in all twelve women."
)
CLAIMS = [
    "CDCA raises energy expenditure.",
    "CDCA lowers energy expenditure.",
    "Brown adipose tissue activity fell.",
    "The study enrolled twelve women.",
    "Aspirin prevents stroke in men over 50.",
]


def pairs(count: int, offset: int = 0) -> list[NLIPair]:
    return [NLIPair(PREMISE, f"{CLAIMS[(offset + i) % len(CLAIMS)]} ({i})") for i in range(count)]


@pytest.fixture(scope="module")
def bundled() -> BundledNLI:
    # One pair per ONNX run: the int8 model quantizes activations per tensor, so a pair's
    # scores move (by up to ~0.05) with the pairs padded into its run. Run alone, every pair
    # scores the same in any batch, and the callers' scores can be compared exactly.
    return BundledNLI(batch_size=1)


@pytest.fixture
def batching(bundled: BundledNLI) -> Iterator[Callable[..., BatchingNLI]]:
    made: list[BatchingNLI] = []

    def make(**options: float) -> BatchingNLI:
        backend = BatchingNLI(bundled, **options)  # type: ignore[arg-type]
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()


def concurrently(calls: list[Callable[[], list[NLIScores]]]) -> list[list[NLIScores]]:
    results: list[list[NLIScores]] = [[] for _ in calls]
    start = threading.Barrier(len(calls))

    def run(i: int) -> None:
        start.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_callers_share_batches_and_get_their_own_scores(
    bundled: BundledNLI, batching: Callable[..., BatchingNLI]
) -> None:
    backend = batching(max_wait_s=0.2, max_pairs=64)
    asks = [pairs(3 + i, offset=i) for i in range(4)]
    results = concurrently([lambda p=p: backend.predict(p) for p in asks])
    for asked, got in zip(asks, results, strict=True):
        alone = bundled.predict(asked)
        assert len(got) == len(asked)
        assert got == alone
    stats = backend.stats
    assert stats.pairs == sum(map(len, asks))
    assert stats.batches < len(asks)  # at least two callers rode in one batch
    assert stats.callers_per_batch_max >= 2


def test_a_big_answer_cannot_starve_a_small_one(batching: Callable[..., BatchingNLI]) -> None:
    backend = batching(max_wait_s=0.0, max_pairs=8, fair_share=4)
    finished: list[str] = []
    big_started = threading.Event()

    def big() -> list[NLIScores]:
        big_started.set()
        out = backend.predict(pairs(120))
        finished.append("big")
        return out

    def small() -> list[NLIScores]:
        big_started.wait()
        out = backend.predict(pairs(2, offset=3))
        finished.append("small")
        return out

    results = concurrently([big, small])
    assert [len(r) for r in results] == [120, 2]
    assert finished == ["small", "big"]
    assert backend.stats.largest <= 8


def test_options_are_checked(bundled: BundledNLI) -> None:
    with pytest.raises(ValueError, match="max_pairs"):
        BatchingNLI(bundled, max_pairs=0)


def test_engine_facing_attributes_are_the_wrapped_backends(
    bundled: BundledNLI, batching: Callable[..., BatchingNLI]
) -> None:
    backend = batching()
    assert backend.version == bundled.version and backend.name == "bundled"
    assert backend.thresholds == bundled.thresholds
    assert backend.predict([]) == []


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_a_failing_backend_fails_every_caller_in_the_batch() -> None:
    respx.post("http://judge.test/v1/chat/completions").mock(return_value=httpx.Response(500))
    judge = create_backend("llm", model="openai/judge", api_base="http://judge.test/v1")
    backend = BatchingNLI(judge, max_wait_s=0.2)
    try:
        calls = [lambda: backend.predict(pairs(2)), lambda: backend.predict(pairs(1))]
        errors: list[BaseException] = []

        def guarded(call: Callable[[], list[NLIScores]]) -> Callable[[], list[NLIScores]]:
            def run() -> list[NLIScores]:
                try:
                    return call()
                except NLIError as exc:
                    errors.append(exc)
                    return []

            return run

        concurrently([guarded(c) for c in calls])
        assert len(errors) == 2
        # The worker survives a failed batch: the next call is scored by the backend again.
        with pytest.raises(NLIError):
            backend.predict(pairs(1))
    finally:
        backend.close()
    with pytest.raises(RuntimeError, match="closed"):
        backend.predict(pairs(1))


def test_the_verifier_batches_when_configured() -> None:
    verifier = Verifier.from_config(
        verifier_config({"batching": {"max_wait_ms": 1, "max_pairs": 32}})
    )
    assert isinstance(verifier.nli, BatchingNLI)
    # The pooled pairs run as one batch, not one ONNX run per pair (the bundled default).
    assert verifier.nli.inner.batch_size == 32
    evidence = [make_evidence("1", "CDCA and energy", [PREMISE])]
    report = verifier.verify("CDCA raises energy expenditure [PMID:1].", evidence)
    assert report.sentences[0].verdict.value in {"supported", "unsupported", "contradicted"}
    assert verifier.nli.stats.pairs > 0
    verifier.nli.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_pair": 8}, "unknown option 'max_pair'; choose from max_wait_ms"),
        ({"max_pairs": 0}, "max_pairs and fair_share must be >= 1"),
        ({"max_wait_ms": "soon"}, "batching: could not convert"),
    ],
)
def test_bad_batching_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(NLIError, match=message):
        BatchOptions.parse(options)
