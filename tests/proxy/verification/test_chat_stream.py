"""The chat API's renderer: typed events in, chat chunks out, each carrying its event."""

from __future__ import annotations

from policies import PolicyStore, decide_and_apply, decide_sentence
from proxy.verification.chat_stream import DOCUMENTS_FIELD, ChatChunks, EventChunk
from proxy.verification.events import (
    BlockMessage,
    Content,
    Finish,
    Opened,
    OtherChoice,
    Report,
    Sentence,
    Usage,
)
from proxy.verification.session import Outcome
from tests.proxy.report_factory import report, sentence
from verifiers import Verdict, to_json

ENVELOPE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
POLICY = PolicyStore().get("default")
ANSWER = report((sentence(0, Verdict.SUPPORTED),))


def _opened(documents: list[dict[str, str]] | None = None) -> ChatChunks:
    chunks = ChatChunks(documents)
    assert chunks.render(Opened(ENVELOPE)) is None  # nothing to send: the envelope to copy
    return chunks


def _outcome() -> Outcome:
    applied, decision = decide_and_apply(POLICY, ANSWER)
    return Outcome(applied, decision, (decide_sentence(POLICY, ANSWER.sentences[0]),))


def test_a_sentence_is_an_empty_delta_with_its_annotation_and_carries_its_event() -> None:
    annotation = ANSWER.sentences[0]
    event = Sentence(annotation, decide_sentence(POLICY, annotation))
    chunk = _opened().render(event)
    assert isinstance(chunk, EventChunk) and chunk.event is event
    assert chunk.data == {
        **ENVELOPE,
        "choices": [{"index": 0, "delta": {}, "finish_reason": None}],
        "verification": {"type": "sentence", **to_json(annotation)},
    }


def test_content_carries_its_tokens_and_another_choice_says_what_logprobs_it_has() -> None:
    chunks = _opened()
    plain = chunks.render(Content("Hi."))
    assert plain is not None and plain.data is not None
    assert plain.data["choices"] == [
        {"index": 0, "delta": {"content": "Hi."}, "finish_reason": None}
    ]
    token = {"token": "Hi.", "logprob": -0.1, "bytes": [72, 105, 46], "top_logprobs": []}
    with_tokens = chunks.render(Content("Hi.", [token]))
    assert with_tokens is not None and with_tokens.data is not None
    assert with_tokens.data["choices"][0]["logprobs"] == {"content": [token], "refusal": None}
    chunks.render(Opened({**ENVELOPE, "id": "chatcmpl-2"}, choice=1))
    other = chunks.render(OtherChoice(1, {"role": "assistant", "content": "Yo."}))
    assert other is not None and other.data is not None
    assert other.data["id"] == "chatcmpl-2"
    assert other.data["choices"] == [
        {
            "index": 1,
            "delta": {"role": "assistant", "content": "Yo."},
            "logprobs": None,
            "finish_reason": None,
        }
    ]


def test_the_report_holds_the_shown_report_its_citations_and_the_documents() -> None:
    outcome = _outcome()
    documents = [{"pmid": "1", "title": "T"}]
    chunk = _opened(documents).render(Report(outcome, outcome.shown_as(set())))
    assert chunk is not None and chunk.data is not None
    assert chunk.data["choices"][0]["delta"] == {}  # no citations: no annotations
    assert chunk.data["verification"]["type"] == "report"
    assert chunk.data["verification"]["sentences"][0]["withheld"] is True  # not shown
    assert chunk.data[DOCUMENTS_FIELD] == documents


def test_a_block_a_held_finish_and_usage() -> None:
    chunks = _opened()
    refusal = chunks.render(BlockMessage("Withheld.", "\n\n", structured=True))
    text = chunks.render(BlockMessage("Withheld.", "\n\n"))
    assert refusal is not None and refusal.data is not None and text is not None
    assert refusal.data["choices"][0]["delta"] == {"refusal": "Withheld."}
    assert text.data is not None and text.data["choices"][0]["delta"] == {
        "content": "\n\nWithheld."
    }
    upstream = {
        **ENVELOPE,
        "system_fingerprint": "fp",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    held = chunks.render(Finish("content_filter", upstream))
    assert held is not None and held.data is not None
    assert held.data["system_fingerprint"] == "fp"  # the upstream's own chunk, but the reason
    assert held.data["choices"][0]["finish_reason"] == "content_filter"
    usage = chunks.render(Usage({"total_tokens": 3}))
    assert usage is not None
    assert usage.data == {**ENVELOPE, "choices": [], "usage": {"total_tokens": 3}}
