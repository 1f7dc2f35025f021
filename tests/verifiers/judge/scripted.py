"""A scripted LLM judge for the upstream emulator: it reads the cascade's request as a real judge
would and answers in the requested JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

_CLAIM = re.compile(r'<data-\w+ claim="(\d+)">')
_WINDOW = re.compile(r'<data-\w+ id="(W\d+)" pmid="[^"]*">(.*?)</data-\w+>', re.S)
_ABSTRACT = re.compile(r'<data-\w+ id="(A\d+)" pmid="[^"]*">(.*?)</data-\w+>', re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def judge_reply(label: str, quote: str | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A scripted judge: every claim gets ``label``, quoting the sentence of its windows that
    shares most words with it and citing that window (or quoting ``quote``, citing the window
    or abstract that holds it)."""

    def reply(body: Mapping[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        verdicts = []
        claims = _CLAIM.split(user)[1:]
        for number, block in zip(claims[::2], claims[1::2], strict=True):
            windows = _WINDOW.findall(block)
            if quote is None:
                window_id, words = _closest(block.split("</data-")[0], windows)
            else:
                # The window or abstract that holds it (a quote from nowhere cites the first).
                holders = [i for i, text in [*windows, *_ABSTRACT.findall(user)] if quote in text]
                window_id, words = (holders or [windows[0][0]])[0], quote
            verdicts.append(
                {
                    "claim": int(number),
                    "label": label,
                    "evidence": [window_id],
                    "quote": words,
                    "reason": "scripted",
                }
            )
        return json.dumps({"verdicts": verdicts})

    return reply


def _closest(claim: str, windows: list[tuple[str, str]]) -> tuple[str, str]:
    """(window id, sentence): the windows' sentence with most words in common with ``claim``."""
    words = set(claim.lower().split())
    sentences = [(w, s) for w, text in windows for s in _SENTENCE_END.split(text.strip())]
    return max(sentences, key=lambda item: len(words & set(item[1].lower().split())))
