"""``veriproxy.client`` (clients/python) with the real frameworks against the real proxy, the
real verifier and the emulator: each hands the app the report of every answer, streamed or
not, where the framework keeps an answer's metadata, with no glue in the app."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.ibuprofen import DOC, DOCUMENTS, FABRICATED, SUPPORTED, VERIFICATION
from veriproxy.client import ReportNotFound, fetch_report

ANSWER = f"{SUPPORTED} {FABRICATED}"
OPTIONS = {"veriproxy": {"documents": DOCUMENTS}}
CLIENT_ROOT = Path(__file__).parents[2] / "clients" / "python"


@pytest.fixture
def verifying(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> RunningProxy:
    emulator.emulator.reply = ANSWER
    return proxy_factory({"verification": VERIFICATION})


def _counts(report: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in report["counts"].items() if v}


EXPECTED = {"supported": 1, "invalid_citation": 1}


# -- fetch_report ---------------------------------------------------------------------------


def test_fetch_report_by_completion_id_and_request_id(verifying: RunningProxy) -> None:
    created = httpx.post(
        f"{verifying.base_url}/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "q"}], **OPTIONS},
        headers={"authorization": "Bearer sk-any", "x-request-id": "app-42"},
        timeout=300,
    ).json()
    by_id = fetch_report(verifying.base_url, created["id"], api_key="sk-any")
    assert by_id == created["verification"]
    assert fetch_report(verifying.base_url + "/", "app-42", api_key="sk-any") == by_id
    with pytest.raises(ReportNotFound):
        fetch_report(verifying.base_url, "chatcmpl-never-made", api_key="sk-any")


def test_the_client_imports_without_the_server_or_any_framework() -> None:
    """Only httpx: the server's packages and the frameworks are blocked in a child process."""
    blocked = ["proxy", "verifiers", "policies", "litellm", "langchain_core", "llama_index"]
    code = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "import veriproxy.client as c\n"
        "print(sorted(c.__all__))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=CLIENT_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "fetch_report" in done.stdout


def test_the_client_wheel_needs_only_httpx(tmp_path: Path) -> None:
    """Built offline from a copy of clients/python: the client package alone, httpx its only
    requirement (each framework is an extra)."""
    source = tmp_path / "source"
    shutil.copytree(CLIENT_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    offline = ("--no-deps", "--no-index", "--no-build-isolation", "--quiet")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), *offline, "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("veriproxy_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [
            line.split(":", 1)[1].strip()
            for line in archive.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"veriproxy"}
    assert [r for r in requires if "extra ==" not in r] == ["httpx>=0.27"]


# -- LangChain ------------------------------------------------------------------------------


def _chat_openai(proxy: RunningProxy, handler: Any) -> Any:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        model="m",
        base_url=proxy.base_url,
        api_key=SecretStr("sk-any"),
        max_retries=0,
        extra_body=OPTIONS,
        callbacks=[handler],
        http_client=handler.http_client(),
        http_async_client=handler.http_async_client(),
    )


def test_langchain_handler_puts_the_report_in_response_metadata(verifying: RunningProxy) -> None:
    from veriproxy.client.langchain import VerificationCallbackHandler

    handler = VerificationCallbackHandler(verifying.base_url, api_key="sk-any")
    llm = _chat_openai(verifying, handler)
    message = llm.invoke(DOC["title"])
    assert _counts(message.response_metadata["verification"]) == EXPECTED
    # Streamed: LangChain's chunks keep no completion id; the report is in the last chunk.
    full = None
    for chunk in llm.stream(DOC["title"]):
        full = chunk if full is None else full + chunk
    assert full is not None and full.content == ANSWER
    assert _counts(full.response_metadata["verification"]) == EXPECTED
    assert full.response_metadata["verification"] != message.response_metadata["verification"]


def test_langchain_async_handler_in_ainvoke_and_astream(verifying: RunningProxy) -> None:
    from veriproxy.client.langchain import AsyncVerificationCallbackHandler

    handler = AsyncVerificationCallbackHandler(verifying.base_url, api_key="sk-any")

    async def run() -> tuple[Any, Any]:
        llm = _chat_openai(verifying, handler)
        message = await llm.ainvoke(DOC["title"])
        full = None
        async for chunk in llm.astream(DOC["title"]):
            full = chunk if full is None else full + chunk
        return message, full

    message, full = asyncio.run(run())
    assert _counts(message.response_metadata["verification"]) == EXPECTED
    assert _counts(full.response_metadata["verification"]) == EXPECTED


def test_langchain_handler_says_when_there_is_no_report(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    """Verification off: no report is stored, and the message says so instead of carrying an
    empty one."""
    from veriproxy.client.langchain import VerificationCallbackHandler

    proxy = proxy_factory()
    handler = VerificationCallbackHandler(proxy.base_url, api_key="sk-any")
    message = _chat_openai(proxy, handler).invoke("hello")
    assert "verification" not in message.response_metadata
    assert "no report stored under 'lc-" in message.response_metadata["verification_error"]


# -- LlamaIndex -----------------------------------------------------------------------------


@pytest.fixture
def llamaindex_handler(verifying: RunningProxy) -> Any:
    from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]

    from veriproxy.client.llamaindex import VerificationEventHandler

    dispatcher = get_dispatcher()
    handler = VerificationEventHandler(base_url=verifying.base_url, api_key="sk-any")
    dispatcher.add_event_handler(handler)
    yield handler
    dispatcher.event_handlers.remove(handler)


def test_llamaindex_handler_puts_the_report_in_additional_kwargs(
    verifying: RunningProxy, llamaindex_handler: Any
) -> None:
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.openai_like import OpenAILike

    llm = OpenAILike(
        model="m",
        api_base=verifying.base_url,
        api_key="sk-any",
        is_chat_model=True,
        max_retries=0,
        additional_kwargs={"extra_body": OPTIONS},
    )
    messages = [ChatMessage(role="user", content=DOC["title"])]
    response = llm.chat(messages)
    assert _counts(response.additional_kwargs["verification"]) == EXPECTED
    *_, last = llm.stream_chat(messages)
    assert last.message.content == ANSWER
    assert _counts(last.additional_kwargs["verification"]) == EXPECTED

    async def astream() -> Any:
        *_, last = [r async for r in await llm.astream_chat(messages)]
        return last

    assert _counts(asyncio.run(astream()).additional_kwargs["verification"]) == EXPECTED


# -- litellm --------------------------------------------------------------------------------

# litellm keeps module-level clients and an event loop that only interpreter exit collects (as
# in tests/proxy/verification/test_reports_e2e.py): its calls run in a child process.
LITELLM_CALLS = """
import asyncio, json, sys, warnings
warnings.simplefilter("ignore")
import litellm
from veriproxy.client.litellm import VerificationLogger
base, options, question = sys.argv[1], *map(json.loads, sys.argv[2:])
arrived = []
logger = VerificationLogger(base, api_key="sk-any", on_report=lambda i, r: arrived.append(i))
litellm.callbacks = [logger]
common = dict(model="openai/m", api_base=base, api_key="sk-any", messages=question,
              extra_body=options)
plain = litellm.completion(**common)
chunks = list(litellm.completion(**common, stream=True))
async def streamed():
    achunks = [c async for c in await litellm.acompletion(**common, stream=True)]
    return achunks[0].id, await logger.areport(achunks[0].id)
async_id, async_report = asyncio.run(streamed())
ids = [plain.id, chunks[0].id, async_id]
reports = [logger.report(plain.id), logger.report(chunks[0].id), async_report]
print(json.dumps({"ids": ids, "reports": reports, "arrived": sorted(set(arrived)),
                  "text": "".join(c.choices[0].delta.content or "" for c in chunks)}))
"""


def test_litellm_callback_reaches_the_report_of_each_call(verifying: RunningProxy) -> None:
    question = [{"role": "user", "content": DOC["title"]}]
    done = subprocess.run(
        [sys.executable, "-c", LITELLM_CALLS, verifying.base_url]
        + [json.dumps(v) for v in (OPTIONS, question)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=CLIENT_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["text"] == ANSWER
    assert len(set(out["ids"])) == 3 and sorted(out["ids"]) == out["arrived"]
    assert [_counts(r) for r in out["reports"]] == [EXPECTED] * 3
