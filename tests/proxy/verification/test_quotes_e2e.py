"""Quoted citations through the real proxy (issue 30 items 4 and 5): the openai SDK reads an
answer whose model quoted the PubMedQA abstract it was given (the upstream emulator streams it
word by word, so every quote is split across chunks), and gets the bare ``[PMID:...]`` in its
text, the citation as a native ``url_citation`` annotation with the quote and its check beside
it, and a misquote flagged -- in chat completions and the Responses API, streamed or not, in
annotate and gate mode. One proxy per setting for the whole module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletionMessage
from openai.types.responses import (
    Response,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseOutputTextAnnotationAddedEvent,
)
from openai.types.responses.response_output_text import AnnotationURLCitation

from proxy.app import create_app
from proxy.config import settings_from_mapping
from proxy.testing.server_thread import RunningEmulator, RunningProxy, ServerThread
from tests.conftest import sdk_client
from tests.proxy.ibuprofen import DOC, DOCUMENTS, QUESTION, VERIFICATION, WRONG_DOSE

PMID = DOC["pmid"]
URL = f"https://pubmed.ncbi.nlm.nih.gov/{PMID}/"
QUOTE = "The perioperative blood loss increased by 45% in the ibuprofen group compared with placebo"
MISQUOTE = QUOTE.replace("45%", "54%")
CLAIM = "Ibuprofen increased the perioperative blood loss by 45% compared with placebo"
QUOTED = f'{CLAIM} [PMID:{PMID} "{QUOTE}"].'
SHOWN = f"{CLAIM} [PMID:{PMID}]."
MISQUOTED = f"{CLAIM} [PMID:{PMID} \u201c{MISQUOTE}\u201d]."
BRACKET = f"[PMID:{PMID}]"
GATE_REDACT = """
name: gate-redact
stream_mode: gate
messages:
  redact: "[removed]"
sentence_rules:
  - name: redact-contradicted
    when:
      verdict: [contradicted]
    action: redact
"""


def _proxy(
    upstream: RunningEmulator, policies: Path, timeout: float | None = None, **citations: str
) -> Iterator[RunningProxy]:
    verification: dict[str, Any] = {**VERIFICATION, "policies_dir": str(policies)}
    if timeout is not None:
        verification["timeout_seconds"] = timeout
    settings = settings_from_mapping(
        {
            "default_upstream": {"base_url": upstream.base_url},
            "retrieval": {"enabled": False, "citations": citations},
            "verification": verification,
        },
        environ={},
    )
    app = create_app(settings)
    with ServerThread(app) as server:
        yield RunningProxy(app, settings, server.url)


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("policies")
    (folder / "gate-redact.yaml").write_text(GATE_REDACT)
    return folder


@pytest.fixture(scope="module")
def stripping(_emulator_server: RunningEmulator, policies: Path) -> Iterator[RunningProxy]:
    yield from _proxy(_emulator_server, policies)


@pytest.fixture(scope="module")
def keeping(_emulator_server: RunningEmulator, policies: Path) -> Iterator[RunningProxy]:
    yield from _proxy(_emulator_server, policies, quotes_in_text="keep")


@pytest.fixture(scope="module")
def timing_out(_emulator_server: RunningEmulator, policies: Path) -> Iterator[RunningProxy]:
    """A verifier with no time to verify one sentence (the default policy fails open)."""
    yield from _proxy(_emulator_server, policies, timeout=0.000001)


def _options(policy: str | None = None, documents: Any = DOCUMENTS) -> dict[str, Any]:
    options: dict[str, Any] = {"documents": documents}
    if policy is not None:
        options["policy"] = policy
    return {"veriproxy": options}


def _chat(proxy: RunningProxy, policy: str | None = None, **extra: Any) -> Any:
    client = sdk_client(proxy.base_url)
    return client.chat.completions.create(
        model="gpt-x",
        messages=QUESTION,  # type: ignore[arg-type]
        extra_body=_options(policy, extra.pop("documents", DOCUMENTS)),
        **extra,
    )


def _message(
    proxy: RunningProxy, *, stream: bool, policy: str | None = None
) -> ChatCompletionMessage:
    """The message an app gets: from ``create()``, or from the stream helper."""
    client = sdk_client(proxy.base_url)
    messages: Any = QUESTION
    if stream:
        with client.chat.completions.stream(
            model="gpt-x", messages=messages, extra_body=_options(policy)
        ) as helper:
            return helper.get_final_completion().choices[0].message
    return (
        client.chat.completions.create(
            model="gpt-x", messages=messages, extra_body=_options(policy)
        )
        .choices[0]
        .message
    )


def _pointed(text: str, annotation: Any) -> str:
    citation = annotation.url_citation
    return text[citation.start_index : citation.end_index]


def _extra(annotation: Any) -> dict[str, Any]:
    return dict(annotation.url_citation.model_extra["veriproxy"])


def test_the_client_reads_the_bare_citation_and_gets_the_quote_as_an_annotation(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = QUOTED
    completion = _chat(stripping)
    message = completion.choices[0].message
    assert message.content == SHOWN
    [annotation] = message.annotations
    assert annotation.type == "url_citation"
    assert (annotation.url_citation.url, annotation.url_citation.title) == (URL, DOC["title"])
    assert _pointed(message.content, annotation) == BRACKET
    assert _extra(annotation) == {
        "pmid": PMID,
        "sentence": 0,
        "verdict": "supported",
        "quote": QUOTE,
        "quote_status": "found",
    }
    [sentence] = completion.model_extra["verification"]["sentences"]
    assert sentence["text"] == SHOWN  # the verifier read what the client reads
    assert sentence["citations"][0]["quote"] == QUOTE
    [check] = sentence["quotes"]
    [span] = check["spans"]
    assert DOC["text"][span["start"] : span["end"]] == QUOTE
    # What the upstream was asked: the contract's quotes, since the evidence was injected.
    sent = emulator.stats.requests[-1]["messages"][0]["content"]
    assert '"exact words from the abstract"' in sent


def test_a_misquote_is_flagged_with_the_abstract_words_it_changed(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = MISQUOTED
    completion = _chat(stripping)
    message = completion.choices[0].message
    assert message.content == SHOWN
    [annotation] = message.annotations
    extra = _extra(annotation)
    assert (extra["quote"], extra["quote_status"]) == (MISQUOTE, "misquote")
    assert extra["verdict"] != "supported"
    [sentence] = completion.model_extra["verification"]["sentences"]
    [check] = sentence["quotes"]
    assert check["status"] == "misquote"
    assert "45%" in check["closest"]["text"] and "54%" in check["difference"]


@pytest.mark.parametrize("policy", [None, "gate-redact"], ids=["annotate", "gate"])
def test_a_stream_strips_the_quote_split_across_chunks(
    stripping: RunningProxy, emulator: RunningEmulator, policy: str | None
) -> None:
    emulator.emulator.reply = QUOTED
    chunks = list(_chat(stripping, policy, stream=True))
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "".join(texts) == SHOWN
    assert not any(word in "".join(texts) for word in ("group", '"'))
    if policy is None:  # annotate: the words before the bracket came as the upstream sent them
        upstream_words = CLAIM.split(" ")
        assert texts[: len(upstream_words)] == [w + " " for w in upstream_words]
    cited = [
        a
        for c in chunks
        if c.choices
        for a in (c.choices[0].delta.model_extra or {}).get("annotations", [])
    ]
    assert [a["url_citation"]["url"] for a in cited] == [URL]
    # One list, in the report chunk: the stream helpers keep a list delta whole only so.
    [carrier] = [c for c in chunks if c.choices and c.choices[0].delta.model_extra]
    assert (carrier.model_extra or {})["verification"]["type"] == "report"
    start, end = cited[0]["url_citation"]["start_index"], cited[0]["url_citation"]["end_index"]
    assert SHOWN[start:end] == BRACKET
    assert cited[0]["url_citation"]["veriproxy"]["quote_status"] == "found"


def test_the_stream_helper_hands_the_app_typed_annotations(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{QUOTED} It was a randomised trial [PMID:{PMID}]."
    message = _message(stripping, stream=True)
    assert message.content == f"{SHOWN} It was a randomised trial {BRACKET}."
    assert [_pointed(message.content or "", a) for a in message.annotations or []] == [BRACKET] * 2
    assert [_extra(a)["quote"] for a in message.annotations or []] == [QUOTE, None]


def test_every_choice_of_a_stream_is_stripped_and_annotated(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = QUOTED
    chunks = list(_chat(stripping, stream=True, n=2))
    for index in (0, 1):
        choices = [c for ch in chunks for c in ch.choices if c.index == index]
        assert "".join(c.delta.content or "" for c in choices) == SHOWN
        cited = [a for c in choices for a in (c.delta.model_extra or {}).get("annotations", [])]
        assert [a["url_citation"]["url"] for a in cited] == [URL]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_redacted_sentence_takes_its_citation_along_and_the_rest_point_right(
    stripping: RunningProxy, emulator: RunningEmulator, stream: bool
) -> None:
    emulator.emulator.reply = f"{WRONG_DOSE} {QUOTED}"
    message = _message(stripping, stream=stream, policy="gate-redact")
    assert message.content == f"[removed] {SHOWN}"
    [annotation] = message.annotations or []
    assert _pointed(message.content, annotation) == BRACKET
    assert (_extra(annotation)["sentence"], _extra(annotation)["quote"]) == (1, QUOTE)


def test_responses_carry_output_text_annotations(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = QUOTED
    client = sdk_client(stripping.base_url)
    response = client.responses.create(model="gpt-x", input=DOC["title"], extra_body=_options())
    assert response.output_text == SHOWN
    [annotation] = _output_annotations(response)
    assert (annotation.type, annotation.url) == ("url_citation", URL)
    assert SHOWN[annotation.start_index : annotation.end_index] == BRACKET
    assert (annotation.model_extra or {})["veriproxy"]["quote_status"] == "found"


def test_a_responses_stream_adds_each_annotation_as_openai_streams_one(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = QUOTED
    client = sdk_client(stripping.base_url)
    with client.responses.stream(
        model="gpt-x", input=DOC["title"], extra_body=_options()
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == final.output_text == SHOWN
    added = [e for e in events if isinstance(e, ResponseOutputTextAnnotationAddedEvent)]
    assert [(e.annotation_index, e.annotation) for e in added] == [
        (0, {"type": "url_citation", **_annotation_fields(final)})
    ]
    [annotation] = _output_annotations(final)
    assert SHOWN[annotation.start_index : annotation.end_index] == BRACKET


def _output_annotations(response: Response) -> list[AnnotationURLCitation]:
    [item] = response.output
    assert isinstance(item, ResponseOutputMessage)
    [part] = item.content
    assert isinstance(part, ResponseOutputText)
    assert all(isinstance(a, AnnotationURLCitation) for a in part.annotations)
    return [a for a in part.annotations if isinstance(a, AnnotationURLCitation)]


def _annotation_fields(response: Response) -> dict[str, Any]:
    [annotation] = _output_annotations(response)
    return annotation.model_dump(exclude={"type"})


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_keep_leaves_the_quote_in_the_text_and_still_checks_it(
    keeping: RunningProxy, emulator: RunningEmulator, stream: bool
) -> None:
    emulator.emulator.reply = MISQUOTED
    message = _message(keeping, stream=stream)
    assert message.content == MISQUOTED
    [annotation] = message.annotations or []
    assert _pointed(message.content, annotation) == MISQUOTED[len(CLAIM) + 1 : -1]
    assert _extra(annotation)["quote_status"] == "misquote"


def test_only_documents_with_a_link_get_url_citations(
    stripping: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{CLAIM} [1]."
    own_id = [{"id": "ward-guide-7", "title": DOC["title"], "text": DOC["text"]}]
    assert _chat(stripping, documents=own_id).choices[0].message.annotations is None
    linked = [{**own_id[0], "url": "https://intranet.example/ward-guide-7"}]
    [annotation] = _chat(stripping, documents=linked).choices[0].message.annotations
    assert annotation.url_citation.url == "https://intranet.example/ward-guide-7"
    emulator.emulator.reply = f"{CLAIM} [PMID:99999999]."  # not in the evidence: no link
    assert _chat(stripping).choices[0].message.annotations is None


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_withheld_misquote_leaves_no_word_of_its_quote(
    stripping: RunningProxy, emulator: RunningEmulator, stream: bool
) -> None:
    """clinical-strict redacts a misquote: the quote the model wrote ("54%") is withheld with
    its sentence, from the text, the annotations and the report's quote checks alike."""
    emulator.emulator.reply = f"{MISQUOTED} It was a randomised trial [PMID:{PMID}]."
    client = sdk_client(stripping.base_url)
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-x",
        messages=QUESTION,  # type: ignore[arg-type]
        extra_body=_options("clinical-strict"),
        stream=stream,
    )
    received = raw.http_response.read().decode()
    assert "54%" not in received and MISQUOTE not in received
    assert "It was a randomised trial" in received  # the rest of the answer was shown


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_legacy_completions_read_the_bare_citation_too(
    stripping: RunningProxy, emulator: RunningEmulator, stream: bool
) -> None:
    emulator.emulator.reply = QUOTED
    client = sdk_client(stripping.base_url)
    options = _options()
    if stream:
        chunks = list(
            client.completions.create(
                model="gpt-x", prompt=DOC["title"], stream=True, extra_body=options
            )
        )
        text = "".join(c.choices[0].text for c in chunks if c.choices)
        report = next(
            (c.model_extra or {})["verification"]
            for c in chunks
            if "sentences" in (c.model_extra or {}).get("verification", {})
        )
    else:
        completion = client.completions.create(
            model="gpt-x", prompt=DOC["title"], extra_body=options
        )
        text, report = completion.choices[0].text, (completion.model_extra or {})["verification"]
    assert text == SHOWN
    assert report["sentences"][0]["quotes"][0]["status"] == "found"


def test_a_quote_nothing_verified_stays_in_the_text(
    timing_out: RunningProxy, emulator: RunningEmulator
) -> None:
    # No annotation carries a quote of an answer whose verification did not reach one
    # sentence, so the text keeps it: the client loses no word the model wrote.
    emulator.emulator.reply = QUOTED
    completion = _chat(timing_out)
    message = completion.choices[0].message
    report = (completion.model_extra or {})["verification"]
    assert report["status"] != "verified" and report["error"] and report["sentences"] == []
    assert message.content == QUOTED and message.annotations is None
    # A stream (annotate mode) keeps every quote that comes after its verifier stopped, and
    # its other choices, verified whole at its end, keep theirs. The emulator drips one word
    # each 20 ms, so the verifier has stopped long before the bracket opens.
    emulator.emulator.drip_s = 0.02
    chunks = list(_chat(timing_out, stream=True, n=2))
    for index in (0, 1):
        choices = [c for ch in chunks for c in ch.choices if c.index == index]
        assert "".join(c.delta.content or "" for c in choices) == QUOTED
    # Gate mode holds the text and releases it unverified (its policy fails open): as written.
    emulator.emulator.drip_s = 0.0
    assert _message(timing_out, stream=True, policy="gate-redact").content == QUOTED
