from __future__ import annotations

import numpy as np
import pytest

from verifiers import Encoder


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(threads=1, batch_size=2)


def test_rows_are_unit_vectors_of_384_dims(encoder: Encoder) -> None:
    emb = encoder.encode(["Aspirin reduces fever.", "Metformin lowers blood glucose in adults."])
    assert emb.shape == (2, 384)
    assert emb.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)


def test_empty_input_gives_empty_matrix(encoder: Encoder) -> None:
    assert encoder.encode([]).shape == (0, 384)


def test_batching_and_length_sorting_keep_rows_in_order(encoder: Encoder) -> None:
    # Dynamic int8 scales activations per batch, so rows move slightly with their batch-mates;
    # the same text must still land on (nearly) the same direction and in its own row.
    texts = [
        "Vitamin D supplementation did not reduce fracture risk in older women.",
        "BRCA1",
        "Statins lower LDL cholesterol.",
    ]
    together = encoder.encode(texts)
    alone = np.vstack([encoder.encode([t]) for t in texts])
    cos = (together * alone).sum(axis=1)
    assert (cos > 0.99).all()
    assert (together @ alone.T).argmax(axis=1).tolist() == [0, 1, 2]


def test_paraphrase_is_closer_than_unrelated_text(encoder: Encoder) -> None:
    query, para, other = encoder.encode(
        [
            "Does smoking cause lung cancer?",
            "Tobacco smoking is a major cause of lung carcinoma.",
            "The lace plant forms perforations in its leaves.",
        ]
    )
    assert float(query @ para) > float(query @ other) + 0.2
