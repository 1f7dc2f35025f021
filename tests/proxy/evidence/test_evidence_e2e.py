"""Evidence injection through the running proxy, called with the real ``openai`` client; the
upstream emulator records exactly what the model was sent."""

from __future__ import annotations

import re
from typing import Any

import openai
import pytest

from proxy.evidence.factory import build_preparer
from proxy.extensions import Extensions
from proxy.settings.retrieval import RetrievalSettings
from tests.conftest import sdk_client

QUESTION = "Do preoperative statins reduce atrial fibrillation after coronary artery bypass?"
APP_PROMPT = "You are a careful clinical assistant."


@pytest.fixture
def client(proxy_factory: Any) -> openai.OpenAI:
    """A proxy whose only extension is the evidence preparer over the shipped demo index."""
    preparer = build_preparer(RetrievalSettings(top_k=3, encoder_threads=1))
    proxy = proxy_factory(extensions=Extensions(preparers=(preparer,)))
    return sdk_client(proxy.base_url, "sk-test")


def sent(emulator: Any) -> list[dict[str, Any]]:
    return emulator.emulator.stats.requests[-1]["messages"]


def ask(client: openai.OpenAI, **kwargs: Any) -> str:
    reply = client.chat.completions.create(
        model="emulated",
        messages=[
            {"role": "system", "content": APP_PROMPT},
            {"role": "user", "content": QUESTION},
        ],
        **kwargs,
    )
    return reply.choices[0].message.content or ""


def test_evidence_from_the_demo_corpus_reaches_the_model(
    client: openai.OpenAI, emulator: Any
) -> None:
    ask(client)
    app, evidence, user = sent(emulator)
    assert app == {"role": "system", "content": APP_PROMPT}
    assert user == {"role": "user", "content": QUESTION}
    assert evidence["role"] == "system"
    labels = re.findall(r"^\[PMID:(\d+)\]", evidence["content"], re.M)
    assert len(labels) == 3
    assert labels[0] == "21881325"  # PubMedQA: preoperative statins and atrial fibrillation
    assert "cite" in evidence["content"] and re.search(r'<evidence id="\w+">', evidence["content"])


def test_streaming_requests_are_grounded_too(client: openai.OpenAI, emulator: Any) -> None:
    stream = client.chat.completions.create(
        model="emulated",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text
    assert "[PMID:21881325]" in sent(emulator)[0]["content"]


def test_opt_out_by_extra_body_and_by_header(client: openai.OpenAI, emulator: Any) -> None:
    ask(client, extra_body={"veriproxy": {"retrieve": False}})
    assert [m["role"] for m in sent(emulator)] == ["system", "user"]
    assert sent(emulator)[0]["content"] == APP_PROMPT
    ask(client, extra_headers={"X-Veriproxy-Retrieve": "false"})
    assert [m["role"] for m in sent(emulator)] == ["system", "user"]


def test_client_documents_replace_pubmed(client: openai.OpenAI, emulator: Any) -> None:
    docs = [
        {"id": "7001", "title": "Formulary note", "text": "Statins are continued peri-op."},
        {"text": "Second document without an id."},
    ]
    ask(client, extra_body={"veriproxy": {"documents": docs}})
    evidence = sent(emulator)[1]["content"]
    assert re.findall(r"^\[PMID:(\d+)\]", evidence, re.M) == ["7001", "2"]
    assert "Statins are continued peri-op." in evidence
    assert "21881325" not in evidence


def test_unusable_documents_are_a_400_in_openais_envelope(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, extra_body={"veriproxy": {"documents": [{"title": "no text"}]}})
    assert info.value.status_code == 400
    assert "document 1" in str(info.value.message)


def test_retrieval_config_section_drives_the_default_pipeline(
    proxy_factory: Any, emulator: Any
) -> None:
    """No explicit extensions: the app builds the preparer from the ``retrieval:`` section."""
    proxy = proxy_factory(
        config={"verification": {"enabled": False}, "retrieval": {"top_k": 2, "mode": "bm25"}}
    )
    client = sdk_client(proxy.base_url, "sk-test")
    ask(client)
    labels = re.findall(r"^\[PMID:(\d+)\]", sent(emulator)[1]["content"], re.M)
    assert labels[0] == "21881325" and len(labels) == 2

    off = proxy_factory(
        config={"verification": {"enabled": False}, "retrieval": {"enabled": False}}
    )
    ask(sdk_client(off.base_url, "sk-test"))
    assert [m["role"] for m in sent(emulator)] == ["system", "user"]
