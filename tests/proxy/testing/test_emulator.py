"""The upstream emulator on its own: OpenAI's wire format, scripted answers, failure modes."""

from __future__ import annotations

import json

import httpx
import openai

from proxy.testing.emulator import Emulator, RecordedReplies
from proxy.testing.server_thread import RunningEmulator, ServerThread
from tests.conftest import sdk_client


def sdk(emulator: RunningEmulator) -> openai.OpenAI:
    return sdk_client(emulator.base_url, "k")


def test_n_choices_logprobs_and_usage(emulator: RunningEmulator) -> None:
    completion = sdk(emulator).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "a b c"}], n=2, logprobs=True
    )
    assert [c.index for c in completion.choices] == [0, 1]
    assert completion.choices[1].message.content == "a b c"
    assert completion.choices[0].logprobs is not None
    assert [t.token for t in completion.choices[0].logprobs.content or []] == ["a ", "b ", "c"]
    assert completion.usage is not None and completion.usage.completion_tokens == 6


def test_stream_usage_chunk_comes_last(emulator: RunningEmulator) -> None:
    chunks = list(
        sdk(emulator).chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "x y"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-2].choices[0].finish_reason == "stop"


def test_error_mode_by_header(emulator: RunningEmulator) -> None:
    response = httpx.post(
        f"{emulator.base_url}/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
        headers={"x-emulator-mode": "error-503"},
    )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "emulated_503"


def test_recorded_replies_replay_by_prompt() -> None:
    replies = RecordedReplies(
        [json.dumps({"prompt": "Does aspirin  thin blood?", "answer": "Yes [PMID:1]."}), ""]
    )
    emulator = Emulator(reply=replies)
    with ServerThread(emulator.app()) as server:
        client = sdk_client(f"{server.url}/v1", "k")
        known = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Does aspirin thin blood?"}]
        )
        unknown = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "something else"}]
        )
    assert known.choices[0].message.content == "Yes [PMID:1]."
    assert unknown.choices[0].message.content == "something else"
