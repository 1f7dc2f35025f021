"""Stored reports: every verified answer's report is reachable at
``GET /v1/chat/completions/{id}/verification``, under the caller's key and tenant, in memory or
in Redis (shared by replicas). Each client of the dev extras reaches it from the completion id it
keeps: the openai SDK, LangChain (``response_metadata["id"]``), LlamaIndex's OpenAILike
(``response.raw.id``) and the litellm SDK -- streamed, not streamed, and for a tool call."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from policies.protocol import load_schema
from proxy.auth import FileKeyStore, new_key
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.ibuprofen import DOC, DOCUMENTS, FABRICATED, QUESTION, SUPPORTED, VERIFICATION
from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, fresh_prefix

ANSWER = f"{SUPPORTED} {FABRICATED}"
TOOL = {
    "type": "function",
    "function": {
        "name": "record_finding",
        "description": "Record a finding.",
        "parameters": {
            "type": "object",
            "properties": {"summary": {"type": "string"}},
            "required": ["summary"],
        },
    },
}
OPTIONS = {"veriproxy": {"documents": DOCUMENTS}}
REPORT_SCHEMA = load_schema("response_report")


@pytest.fixture
def verifying(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> RunningProxy:
    emulator.emulator.reply = ANSWER
    emulator.emulator.tool_arguments = json.dumps({"summary": ANSWER})
    return proxy_factory({"verification": VERIFICATION})


def fetch(proxy: RunningProxy, completion_id: str, key: str = "sk-any") -> httpx.Response:
    return httpx.get(
        f"{proxy.base_url}/chat/completions/{completion_id}/verification",
        headers={"authorization": f"Bearer {key}"},
        timeout=10,
    )


def report_of(proxy: RunningProxy, completion_id: str) -> dict[str, Any]:
    response = fetch(proxy, completion_id)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == completion_id and body["object"] == "chat.completion.verification"
    jsonschema.validate(body["verification"], REPORT_SCHEMA)
    return dict(body["verification"])


def _paths(report: dict[str, Any]) -> set[str | None]:
    return {s["path"] for s in report["sentences"]}


# -- the openai SDK -------------------------------------------------------------------------


def test_openai_sdk_reaches_the_report_of_every_answer_shape(verifying: RunningProxy) -> None:
    with openai.OpenAI(base_url=verifying.base_url, api_key="sk-any", max_retries=0) as client:
        plain = client.chat.completions.create(model="m", messages=QUESTION, extra_body=OPTIONS)
        assert report_of(verifying, plain.id) == plain.model_extra["verification"]  # type: ignore[index]
        with client.chat.completions.stream(
            model="m", messages=QUESTION, extra_body=OPTIONS
        ) as stream:
            streamed = stream.get_final_completion()
        assert report_of(verifying, streamed.id)["counts"]["invalid_citation"] == 1
        called = client.chat.completions.create(
            model="m",
            messages=QUESTION,
            tools=[TOOL],
            extra_body=OPTIONS,  # type: ignore[list-item]
        )
        report = report_of(verifying, called.id)
        assert _paths(report) == {"$.tool_calls[0].function.arguments.summary"}
    assert fetch(verifying, "chatcmpl-never-made").status_code == 404
    assert fetch(verifying, "chatcmpl-never-made").json()["error"]["code"] == "report_not_found"


# -- LangChain ------------------------------------------------------------------------------


def test_langchain_reaches_the_report_by_response_metadata_id(verifying: RunningProxy) -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    llm = langchain_openai.ChatOpenAI(
        model="m",
        base_url=verifying.base_url,
        api_key="sk-any",
        max_retries=0,
        extra_body=OPTIONS,
        stream_usage=True,
    )
    message = llm.invoke(DOC["title"])
    assert report_of(verifying, message.response_metadata["id"])["counts"]["supported"] == 1
    # A LangChain stream keeps no completion id: the caller names the request instead.
    chunks = list(llm.stream(DOC["title"], extra_headers={"X-Request-Id": "lc-stream-1"}))
    assert not any(str(c.id).startswith("chatcmpl-") for c in chunks)
    assert report_of(verifying, "lc-stream-1")["counts"]["invalid_citation"] == 1
    called = llm.bind_tools([TOOL]).invoke(DOC["title"])
    assert called.tool_calls and called.tool_calls[0]["args"]["summary"] == ANSWER
    report = report_of(verifying, called.response_metadata["id"])
    assert _paths(report) == {"$.tool_calls[0].function.arguments.summary"}


# -- LlamaIndex -----------------------------------------------------------------------------


def test_llamaindex_openailike_reaches_the_report_by_raw_id(verifying: RunningProxy) -> None:
    openai_like = pytest.importorskip("llama_index.llms.openai_like")
    from llama_index.core.llms import ChatMessage

    llm = openai_like.OpenAILike(
        model="m",
        api_base=verifying.base_url,
        api_key="sk-any",
        is_chat_model=True,
        is_function_calling_model=True,
        max_retries=0,
        additional_kwargs={"extra_body": OPTIONS},
    )
    messages = [ChatMessage(role="user", content=DOC["title"])]
    response = llm.chat(messages)
    assert report_of(verifying, response.raw.id)["counts"]["supported"] == 1
    streamed = list(llm.stream_chat(messages))
    assert report_of(verifying, streamed[-1].raw.id)["counts"]["invalid_citation"] == 1
    called = llm.chat(messages, tools=[TOOL])
    assert called.message.additional_kwargs["tool_calls"]
    report = report_of(verifying, called.raw.id)
    assert _paths(report) == {"$.tool_calls[0].function.arguments.summary"}


# -- litellm --------------------------------------------------------------------------------


# litellm keeps module-level clients and an event loop that only interpreter exit collects (an
# unclosed-resource warning at the end of the test session): its calls run in a child process.
LITELLM_CALLS = """
import json, sys, warnings
warnings.simplefilter("ignore")
import litellm
base, options, question, tool = sys.argv[1], *map(json.loads, sys.argv[2:])
common = dict(model="openai/m", api_base=base, api_key="sk-any", messages=question,
              extra_body=options)
plain = litellm.completion(**common)
chunks = list(litellm.completion(**common, stream=True))
called = litellm.completion(**common, tools=[tool])
print(json.dumps({"plain": plain.id, "stream": chunks[0].id, "tool": called.id,
                  "called": bool(called.choices[0].message.tool_calls)}))
"""


def test_litellm_sdk_reaches_the_report_by_response_id(verifying: RunningProxy) -> None:
    args = [json.dumps(v) for v in (OPTIONS, QUESTION, TOOL)]
    done = subprocess.run(
        [sys.executable, "-c", LITELLM_CALLS, verifying.base_url, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    ids = json.loads(done.stdout.strip().splitlines()[-1])
    assert report_of(verifying, ids["plain"])["counts"]["supported"] == 1
    assert report_of(verifying, ids["stream"])["counts"]["invalid_citation"] == 1
    assert ids["called"]
    report = report_of(verifying, ids["tool"])
    assert _paths(report) == {"$.tool_calls[0].function.arguments.summary"}


# -- scope and storage ----------------------------------------------------------------------


def _key(store: Path, tenant: str) -> str:
    key, record = new_key(tenant)
    asyncio.run(FileKeyStore(store).put(record))
    return key


def test_a_report_is_only_reachable_by_its_own_tenant(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    acme, acme_again, other = _key(store, "acme"), _key(store, "acme"), _key(store, "globex")
    emulator.emulator.reply = ANSWER
    proxy = proxy_factory({"auth": {"store": str(store)}, "verification": VERIFICATION})
    body = {"model": "m", "messages": QUESTION, **OPTIONS}
    created = httpx.post(
        f"{proxy.base_url}/chat/completions",
        json=body,
        headers={"authorization": f"Bearer {acme}"},
        timeout=60,
    ).json()
    assert fetch(proxy, created["id"], acme_again).json()["verification"] == created["verification"]
    assert fetch(proxy, created["id"], other).status_code == 404
    assert fetch(proxy, created["id"], "sk-not-a-key").status_code == 401


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    prefix = fresh_prefix()
    yield prefix
    delete_prefix(prefix)


def test_replicas_sharing_redis_serve_each_others_reports(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, redis_prefix: str
) -> None:
    emulator.emulator.reply = ANSWER
    config = {
        "redis": {"url": SHARED_URL, "prefix": redis_prefix},
        "verification": VERIFICATION,
    }
    first, second = proxy_factory(config), proxy_factory(config)
    with openai.OpenAI(base_url=first.base_url, api_key="sk-any", max_retries=0) as client:
        completion = client.chat.completions.create(
            model="m", messages=QUESTION, extra_body=OPTIONS
        )
    assert report_of(second, completion.id) == completion.model_extra["verification"]  # type: ignore[index]
