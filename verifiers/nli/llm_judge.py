"""An LLM as the NLI judge, through litellm (any provider it supports, or a local server).

One request scores a batch of pairs: the judge returns a JSON list with a label and a confidence
per pair. The chosen label gets the confidence and the other two share the rest, so the result
fits ``NLIScores``. Failures (unreachable judge, malformed reply) raise ``NLIError``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from verifiers._llm import BatchedLLM, llm_failures
from verifiers.nli._base import NLIError, NLIPair, NLIScores

_SYSTEM = (
    "You are a strict biomedical fact-checking judge. For each numbered pair decide whether the "
    "EVIDENCE entails the CLAIM, contradicts it, or is neutral (does not say). Judge only from the "
    "evidence. Reply with JSON only: "
    '{"results": [{"id": 1, "label": "entailment|neutral|contradiction", "confidence": 0.0-1.0}]}'
)
_LABELS = ("entailment", "neutral", "contradiction")
DEFAULT_BATCH_SIZE = 8


class LLMJudge(BatchedLLM):
    """NLI backend that asks an LLM; ``model`` is a litellm model name such as
    ``openai/gpt-4o-mini``; ``api_base`` points at any OpenAI-compatible server."""

    default_batch_size = DEFAULT_BATCH_SIZE

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        return self._in_batches(pairs, self._judge)

    def _judge(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        prompt = "\n\n".join(
            f"Pair {i}\nEVIDENCE: {p.premise}\nCLAIM: {p.hypothesis}"
            for i, p in enumerate(pairs, start=1)
        )
        with llm_failures(NLIError, f"LLM judge {self.model}"):
            content = self._endpoint.complete(_SYSTEM, prompt)
        return parse_judgement(content, len(pairs))


def parse_judgement(content: str, expected: int) -> list[NLIScores]:
    """Turn the judge's JSON reply into one ``NLIScores`` per pair, in order."""
    try:
        data: Any = json.loads(_json_part(content))
        results = {int(r["id"]): r for r in data["results"]}
        return [_scores(results[i]) for i in range(1, expected + 1)]
    except (ValueError, KeyError, TypeError) as exc:
        raise NLIError(f"malformed LLM judge reply: {exc}") from exc


def _json_part(content: str) -> str:
    """The JSON object inside a reply that may wrap it in prose or a code fence."""
    start, end = content.find("{"), content.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    return content[start : end + 1]


def _scores(result: dict[str, Any]) -> NLIScores:
    label = str(result["label"]).strip().lower()
    if label not in _LABELS:
        raise ValueError(f"unknown label {label!r}")
    confidence = min(max(float(result.get("confidence", 1.0)), 0.0), 1.0)
    rest = (1.0 - confidence) / 2
    values = {name: (confidence if name == label else rest) for name in _LABELS}
    return NLIScores(values["entailment"], values["neutral"], values["contradiction"])
