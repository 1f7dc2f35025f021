"""A scripted LLM judge for the upstream emulator: it reads the cascade's request as a real judge
would and answers in the requested JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

_CLAIM = re.compile(r'<data-\w+ claim="(\d+)">')
_WINDOW = re.compile(r'<data-\w+ id="(W\d+)" pmid="[^"]*">(.*?)</data-\w+>', re.S)


def judge_reply(label: str, quote: str | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A scripted judge: every claim gets ``label``, citing its first window and quoting its
    first eight words (or ``quote``)."""

    def reply(body: Mapping[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        verdicts = []
        claims = _CLAIM.split(user)[1:]
        for number, block in zip(claims[::2], claims[1::2], strict=True):
            window_id, text = _WINDOW.findall(block)[0]
            words = quote if quote is not None else " ".join(text.split()[:8])
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
