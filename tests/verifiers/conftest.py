"""Fixtures for the verification tests: evidence excerpts and a tiny Hugging Face NLI model."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from verifiers import Evidence
from verifiers.eval.pairs import CountingNLI
from verifiers.windows import make_evidence

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verification"
_VOCAB = "[PAD] [UNK] [CLS] [SEP] [MASK] aspirin reduces mortality in patients not the"

TinyModel = Callable[[Path, Mapping[int, str], str], Path]


@pytest.fixture(scope="session")
def evidence() -> list[Evidence]:
    """Real abstracts (SciFact corpus, Check-COVID corpus) in injection order."""
    records = [json.loads(line) for line in (FIXTURES / "evidence.jsonl").read_text().splitlines()]
    return [make_evidence(r["pmid"], r["title"], r["sentences"]) for r in records]


@pytest.fixture(scope="session")
def cases() -> list[dict[str, Any]]:
    """Dataset claims with the abstract they were judged against and the gold verdict."""
    data: list[dict[str, Any]] = json.loads((FIXTURES / "cases.json").read_text())
    return data


@pytest.fixture(scope="session")
def tiny_model() -> TinyModel:
    """Builds a randomly initialised one-layer BERT NLI model whose classifier always prefers
    ``winner``: plumbing only, never a judge of verdicts."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    def build(path: Path, id2label: Mapping[int, str], winner: str) -> Path:
        (path / "vocab.txt").write_text("\n".join(_VOCAB.split()) + "\n")
        tokenizer = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
        config = transformers.BertConfig(
            vocab_size=len(_VOCAB.split()),
            hidden_size=8,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=16,
            max_position_embeddings=512,
            num_labels=len(id2label),
            id2label=dict(id2label),
            label2id={v: k for k, v in id2label.items()},
        )
        torch.manual_seed(0)
        model = transformers.BertForSequenceClassification(config)
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.zero_()
            model.classifier.bias[next(i for i, n in id2label.items() if n == winner)] = 5.0
        model.save_pretrained(path)
        tokenizer.save_pretrained(path)
        return path

    return build


@pytest.fixture
def litellm_httpx() -> Iterator[None]:
    """Route litellm through httpx so respx sees its calls (its default aiohttp transport would
    bypass respx), restoring the setting afterwards."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    previous = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    yield
    litellm.disable_aiohttp_transport = previous


@pytest.fixture(scope="session")
def entailing_verifier(tmp_path_factory: pytest.TempPathFactory, tiny_model: TinyModel) -> Any:
    """A ``Verifier`` whose NLI model entails everything: shows what the engine adds on top of
    NLI (citations, quotes, checks), never how good its verdicts are."""
    from verifiers.engine import Verifier
    from verifiers.nli.hf_backend import HFNLI
    from verifiers.windows import WindowSelector

    path = tiny_model(
        tmp_path_factory.mktemp("tiny"),
        {0: "contradiction", 1: "entailment", 2: "neutral"},
        "entailment",
    )
    return Verifier(HFNLI(path, threads=1), selector=WindowSelector())


@pytest.fixture
def contradicting(tmp_path_factory: pytest.TempPathFactory, tiny_model) -> CountingNLI:  # type: ignore[no-untyped-def]
    """A model that contradicts everything, counted: whatever is not contradicted in a test
    using it, the engine decided."""
    from verifiers.nli.hf_backend import HFNLI

    path = tiny_model(
        tmp_path_factory.mktemp("contradicting"),
        {0: "contradiction", 1: "entailment", 2: "neutral"},
        "contradiction",
    )
    return CountingNLI(HFNLI(path, threads=1))
