"""The chat service's extension points, end to end through the real proxy and SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai

from proxy.extensions import Extensions, RequestContext
from proxy.protocol import ChatRequest
from proxy.streaming import StreamChunk
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client
from verifiers.windows import make_evidence

MESSAGES = [{"role": "user", "content": "Aspirin works. It thins blood."}]


def cited(ctx: RequestContext) -> list[str]:
    """What the preparer left for the later steps, as citation markers."""
    return [f"PMID:{e.pmid}" for e in ctx.state.evidence]


class InjectEvidence:
    def __init__(self) -> None:
        self.seen: list[RequestContext] = []

    async def prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest:
        self.seen.append(ctx)
        ctx.state.evidence = (make_evidence("1", "Aspirin", "Aspirin thins blood."),)
        system = {"role": "system", "content": "Cite [PMID:1]."}
        return request.with_body(messages=[system, *request.messages])


class Annotate:
    """Adds an empty-delta chunk with ``verification`` after each sentence-ending chunk."""

    async def transform(
        self, chunks: AsyncIterator[StreamChunk], ctx: RequestContext
    ) -> AsyncIterator[StreamChunk]:
        async for chunk in chunks:
            yield chunk
            data = chunk.data or {}
            content = (data.get("choices") or [{}])[0].get("delta", {}).get("content") or ""
            if content.rstrip().endswith("."):
                yield StreamChunk.from_data(
                    {
                        "id": data["id"],
                        "object": "chat.completion.chunk",
                        "created": data["created"],
                        "model": data["model"],
                        "choices": [{"index": 0, "delta": {}, "finish_reason": None}],
                        "verification": {"sentence": content.strip()},
                    }
                )
        yield StreamChunk.from_data(
            {
                "id": "report",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": ctx.model,
                "choices": [{"index": 0, "delta": {}, "finish_reason": None}],
                "verification": {"report": cited(ctx)},
            }
        )


class StopAfter:
    def __init__(self, count: int) -> None:
        self.count = count

    async def transform(
        self, chunks: AsyncIterator[StreamChunk], ctx: RequestContext
    ) -> AsyncIterator[StreamChunk]:
        seen = 0
        async for chunk in chunks:
            yield chunk
            seen += 1
            if seen == self.count:
                return


class AddVerification:
    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        return {**completion, "verification": {"evidence": cited(ctx)}}


def client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "k")


def test_preparer_rewrites_messages_and_sees_options(
    proxy_factory, emulator: RunningEmulator
) -> None:
    preparer = InjectEvidence()
    proxy = proxy_factory(extensions=Extensions(preparers=(preparer,)))
    client(proxy).chat.completions.create(
        model="m",
        messages=MESSAGES,
        extra_body={"veriproxy": {"retrieve": False, "custom": 3}},
        extra_headers={"X-Veriproxy-Policy": "strict", "X-Request-Id": "req-42"},
    )
    sent = emulator.stats.requests[-1]
    assert sent["messages"][0] == {"role": "system", "content": "Cite [PMID:1]."}
    assert "veriproxy" not in sent
    ctx = preparer.seen[-1]
    assert ctx.request_id == "req-42"
    assert ctx.options.retrieve is False
    assert ctx.options.policy == "strict"
    assert ctx.options.extra == {"custom": 3}


def test_transformer_adds_annotation_chunks_sdk_still_reads_text(proxy_factory) -> None:
    proxy = proxy_factory(
        extensions=Extensions(preparers=(InjectEvidence(),), transformers=(Annotate(),))
    )
    stream = client(proxy).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == MESSAGES[0]["content"]
    annotations = [c.model_extra["verification"] for c in chunks if c.model_extra]
    assert annotations == [
        {"sentence": "works."},
        {"sentence": "blood."},
        {"report": ["PMID:1"]},
    ]


def test_transformer_stopping_early_cancels_upstream(
    proxy_factory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(extensions=Extensions(transformers=(StopAfter(2),)))
    stream = client(proxy).chat.completions.create(
        model="emu-drip-200", messages=MESSAGES, stream=True
    )
    assert len(list(stream)) == 2
    assert emulator.stats.wait_for(lambda s: s.streams_cancelled == 1)
    assert emulator.stats.streams_completed == 0


def test_finaliser_adds_verification(proxy_factory) -> None:
    proxy = proxy_factory(
        extensions=Extensions(preparers=(InjectEvidence(),), finalisers=(AddVerification(),))
    )
    completion = client(proxy).chat.completions.create(model="m", messages=MESSAGES)
    assert completion.choices[0].message.content == MESSAGES[0]["content"]
    assert completion.model_extra == {"verification": {"evidence": ["PMID:1"]}}
