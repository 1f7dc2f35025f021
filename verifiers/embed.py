"""Sentence encoder: all-MiniLM-L6-v2 as int8 ONNX, run with ONNX Runtime (no torch).

``Encoder.encode(texts)`` returns one L2-normalised 384-dim float32 row per text (attention-masked
mean pooling, as sentence-transformers does), so a dot product is the cosine similarity. Texts are
sorted by length before batching so that padding stays small.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnxruntime as ort
from numpy.typing import NDArray
from tokenizers import Tokenizer

DEFAULT_MODEL_DIR = Path(__file__).parent / "models" / "embed"
MAX_TOKENS = 256
DEFAULT_BATCH_SIZE = 32
DIM = 384


class Encoder:
    """Batched sentence encoder over the bundled (or any compatible) ONNX BERT encoder."""

    def __init__(
        self,
        model_dir: Path | str = DEFAULT_MODEL_DIR,
        *,
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        model_dir = Path(model_dir)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model_dir / "encoder.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size
        # The tokenizer's padding/truncation state is mutable; one encode at a time per instance.
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return DIM

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed ``texts`` into a ``(len(texts), 384)`` float32 array of unit vectors."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self._lock:
            for start in range(0, len(order), self._batch_size):
                idx = order[start : start + self._batch_size]
                out[idx] = self._encode_batch([texts[i] for i in idx])
        return out

    def _encode_batch(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(["last_hidden_state"], feeds)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)


@lru_cache(maxsize=4)
def shared_encoder(threads: int = 1) -> Encoder:
    """One bundled encoder per process (and thread count): dense retrieval, the window rerank
    and the relatedness of a contradiction share it."""
    return Encoder(threads=threads)


class LazyEncoder:
    """The process's shared encoder, loaded on the first ``encode``: a verifier that never needs
    it never loads it (about 50 MiB resident)."""

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return shared_encoder(self.threads).encode(texts)
