"""A hostile upstream against the gate (issue 26): the emulator answers in the shapes of
:mod:`proxy.testing.hostile`, the real proxy runs the bundled verifier under the shipped
``clinical-strict`` policy (gate, redact fabricated citations, ``on_verifier_error: closed``),
and the real openai SDK reads the answer. Every byte the client received is searched for the
words of the sentence that cites a fabricated PMID, and the answer is never reported
``verified``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from proxy.testing import hostile
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory, sdk_client
from tests.proxy.ibuprofen import DOCUMENTS, QUESTION, SUPPORTED, VERIFICATION

WORD = "ZEBRAQUUX"
FAKE_PMID = "99999999"
FABRICATED = f"Ibuprofen also halves the rate of {WORD} infection [PMID:{FAKE_PMID}]."
ANSWER = f"{SUPPORTED} {FABRICATED}"


@pytest.fixture
def gate(proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path) -> RunningProxy:
    emulator.emulator.reply = ANSWER
    return proxy_factory(
        {"verification": VERIFICATION, "audit": {"jsonl": str(tmp_path / "audit.jsonl")}}
    )


def _options(policy: str = "clinical-strict") -> dict[str, Any]:
    return {"veriproxy": {"documents": DOCUMENTS, "policy": policy}}


def _audit(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def _leaks(received: bytes) -> list[str]:
    text = received.decode("utf-8", "replace").lower()
    return [w for w in (WORD.lower(), FAKE_PMID) if w in text]


def _chat(proxy: RunningProxy, shape: str, *, stream: bool, **extra: Any) -> tuple[bytes, str]:
    """The bytes the SDK received and the ``x-veriproxy-status`` it saw (the report chunk's
    status when streamed: the header is sent before verification ends). ``shape`` '': the
    emulator's well-formed answer."""
    client = sdk_client(proxy.base_url)
    raw = client.chat.completions.with_raw_response.create(
        model=f"emu-hostile-{shape}" if shape else "gpt-x",
        messages=QUESTION,  # type: ignore[arg-type]
        stream=stream,
        extra_body=_options(),
        **extra,
    )
    received = raw.http_response.read()
    if not stream:
        parsed = raw.parse()
        report = (parsed.model_extra or {})["verification"]
        assert raw.headers["x-veriproxy-status"] == report["status"]
        return received, report["status"]
    reports = [
        (chunk.model_extra or {})["verification"]
        for chunk in raw.parse()
        if (chunk.model_extra or {}).get("verification", {}).get("type") == "report"
    ]
    return received, next(r["status"] for r in reports if r.get("choice", 0) == 0)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("shape", hostile.CHAT)
def test_gate_sends_nothing_withheld_in_any_chat_shape(
    gate: RunningProxy, shape: str, stream: bool
) -> None:
    extra: dict[str, Any] = {}
    if shape == "token-lead":
        extra = {"logprobs": True, "top_logprobs": 1}
    if shape == "duplicate-keys":
        extra = {"response_format": {"type": "json_object"}}
    received, status = _chat(gate, shape, stream=stream, **extra)
    assert _leaks(received) == [], received.decode()
    assert status != "verified"
    assert all(r["status"] != "verified" for r in _audit(gate))


WRITTEN_AROUND = {
    "lead-in": f"Please note that ibuprofen also halves the rate of {WORD} infection "
    f"[PMID:{FAKE_PMID}].",
    "greeting": f"Hello, ibuprofen also halves the rate of {WORD} infection [PMID:{FAKE_PMID}].",
    "introducer": f"Here is one more finding: ibuprofen also halves the rate of {WORD} "
    f"infection [PMID:{FAKE_PMID}].",
    "cited-after-the-full-stop": f"Ibuprofen also halves the rate of {WORD} infection. "
    f"[PMID:{FAKE_PMID}]",
    # Characters pysbd uses as its own placeholders ("\u261d", "\u2609"): it rewrote the
    # sentence, and the segmenter lost it from every span.
    "placeholder-character": f"Ibuprofen also halves the rate of {WORD}\u261d infection "
    f"[PMID:{FAKE_PMID}].",
    "placeholder-before-a-full-stop": f"Ibuprofen also halves the rate of {WORD} infection "
    f"\u2609 . [PMID:{FAKE_PMID}]",
    # A unit separator before a numbered item made the sentencizer raise: nothing was verified.
    "unit-separator": f"Ibuprofen also halves the rate of {WORD} infection \x1f1. "
    f"[PMID:{FAKE_PMID}]",
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("written", list(WRITTEN_AROUND))
def test_gate_reads_a_sentence_through_what_is_written_around_it(
    gate: RunningProxy, emulator: RunningEmulator, written: str, stream: bool
) -> None:
    """Cited after its full stop, the citation stood alone (redacted) and the sentence went out
    with its words, merely ``uncited``; the sentence now ends at its citation. Opened by a
    lead-in, a greeting or an introducer, it was not check-worthy (only its fabricated citation
    still caught it); it is now verified, and redacted all the same. Written with a character
    the sentencizer rewrites, it was in no sentence at all."""
    emulator.emulator.reply = f"{SUPPORTED} {WRITTEN_AROUND[written]}"
    received, status = _chat(gate, "", stream=stream)
    assert _leaks(received) == [], received.decode()
    assert status == "redacted"


AS_TALK = {
    "disclaimer": f"This is not medical advice but ibuprofen halves the rate of {WORD} infection.",
    "aside": f"I cannot stress enough that ibuprofen halves the rate of {WORD} infection.",
    "greeting": f"Hi there ibuprofen halves the rate of {WORD} infection.",
    "tag-question": f"Ibuprofen halves the rate of {WORD} infection, doesn't it?",
    "did-you-know": f"Did you know that ibuprofen halves the rate of {WORD} infection?",
    "why-do-you-think": f"Why do you think ibuprofen halves the rate of {WORD} infection?",
    "line-before-a-colon": f"Ibuprofen halves the rate of {WORD} infection:",
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("talk", list(AS_TALK))
def test_a_finding_written_as_talk_or_a_question_is_verified(
    gate: RunningProxy, emulator: RunningEmulator, talk: str, stream: bool
) -> None:
    """Meta talk with no comma before a finding was read whole as talk, and every question as
    asking: the uncited finding was ``not_checkworthy`` and went out unflagged, as if it
    claimed nothing."""
    emulator.emulator.reply = f"{SUPPORTED} {AS_TALK[talk]}"
    _, status = _chat(gate, "", stream=stream)
    assert status != "verified"
    [record] = _audit(gate)
    assert [s["verdict"] for s in record["sentences"]][1:] == ["uncited"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("shape", ["reasoning", "refusal", "function-call", "choice-text"])
def test_annotate_never_reports_an_unread_field_verified(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, shape: str, stream: bool
) -> None:
    """Annotate mode delivers as it streams; what it could not read is still not ``verified``."""
    emulator.emulator.reply = SUPPORTED
    proxy = proxy_factory({"verification": VERIFICATION})
    client = sdk_client(proxy.base_url)
    raw = client.chat.completions.with_raw_response.create(
        model=f"emu-hostile-{shape}",
        messages=QUESTION,  # type: ignore[arg-type]
        stream=stream,
        extra_body=_options("default"),
    )
    raw.http_response.read()
    if stream:
        chunks = [(c.model_extra or {}).get("verification") for c in raw.parse()]
        [report] = [v for v in chunks if v and v.get("type") == "report"]
    else:
        report = (raw.parse().model_extra or {})["verification"]
    assert report["status"] != "verified"
    assert report["error"]


def test_redacted_sentence_loses_its_tokens_and_citations(gate: RunningProxy) -> None:
    """The first token of a redacted sentence begins with a space, in the gap before it."""
    client = sdk_client(gate.base_url)
    completion = client.chat.completions.create(
        model="emu-hostile-token-lead",
        messages=QUESTION,  # type: ignore[arg-type]
        logprobs=True,
        top_logprobs=1,
        extra_body=_options(),
    )
    report = (completion.model_extra or {})["verification"]
    assert report["status"] == "redacted"
    [withheld] = [s for s in report["sentences"] if s["withheld"]]
    assert withheld["citations"] == []
    [choice] = completion.choices
    assert choice.logprobs is not None and choice.logprobs.content
    shown = "".join(t.token for t in choice.logprobs.content)
    assert shown and SUPPORTED.startswith(shown.rstrip())


# -- legacy completions and the Responses API ----------------------------------------------


@pytest.mark.parametrize("n", [2.0, "2"])
def test_completions_n_must_be_an_integer(gate: RunningProxy, n: object) -> None:
    client = sdk_client(gate.base_url)
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(
            model="emu-hostile-two-choices", prompt="q", extra_body={**_options(), "n": n}
        )
    assert _leaks(caught.value.response.content) == []


@pytest.mark.parametrize("extra", [{"echo": True}, {"prompt": ["q", "r"]}], ids=str)
def test_completions_a_closed_policy_cannot_verify_are_refused_and_audited(
    gate: RunningProxy, emulator: RunningEmulator, extra: dict[str, Any]
) -> None:
    """What the gate cannot verify (echo, a batch prompt) is refused under
    ``on_verifier_error: closed`` before the upstream is asked, and audited."""
    client = sdk_client(gate.base_url)
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(
            model="emu-hostile-two-choices", prompt="q", extra_body={**_options(), **extra}
        )
    assert caught.value.code == "unverifiable_request"
    assert emulator.emulator.stats.requests == []
    [record] = _audit(gate)
    assert record["status"] == "blocked" and "unverifiable_request" in record["error"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_completions_a_choice_not_asked_for_is_a_protocol_error(
    gate: RunningProxy, stream: bool
) -> None:
    """A second choice to a request for one: never sent, never ``verified``."""
    client = sdk_client(gate.base_url)
    received = b""
    try:
        raw = client.completions.with_raw_response.create(
            model="emu-hostile-two-choices", prompt="q", stream=stream, extra_body=_options()
        )
        received = raw.http_response.read()
        for _ in raw.parse():  # type: ignore[attr-defined]
            pass
    except openai.APIError as exc:
        assert "did not ask for" in exc.message
        received += exc.response.content if isinstance(exc, openai.APIStatusError) else b""
    assert _leaks(received) == [], received.decode()
    [record] = _audit(gate)
    assert record["status"] == "blocked" and "upstream_protocol_error" in record["error"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("shape", hostile.RESPONSES)
def test_responses_send_nothing_withheld(gate: RunningProxy, shape: str, stream: bool) -> None:
    client = sdk_client(gate.base_url)
    raw = client.responses.with_raw_response.create(
        model=f"emu-hostile-{shape}", input="q", stream=stream, extra_body=_options()
    )
    received = raw.http_response.read()
    assert _leaks(received) == [], received.decode()
    [record] = _audit(gate)
    assert record["status"] != "verified"
    if stream and shape in ("failed", "truncated"):
        # A failed or cut stream ends in an error event, as chat's does, never completed.
        with pytest.raises(openai.APIError, match=r"upstream|response\.completed"):
            list(raw.parse())  # type: ignore[call-overload]
        assert b'"type":"response.completed"' not in received
        assert "upstream_protocol_error" in record["error"]


@pytest.mark.parametrize(
    "marker",
    [
        "[PM\u200dID:99999999]",
        "\uff3bPMID\uff1a\uff19\uff19\uff19\uff19\uff19\uff19\uff19\uff19\uff3d",
    ],
    ids=["zero-width-joiner", "full-width"],
)
def test_a_lookalike_fabricated_citation_is_caught(
    gate: RunningProxy, emulator: RunningEmulator, marker: str
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} Ibuprofen also halves the rate of {WORD} {marker}."
    client = sdk_client(gate.base_url)
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-x",
        messages=QUESTION,  # type: ignore[arg-type]
        extra_body=_options(),
    )
    received = raw.http_response.read()
    assert WORD.lower() not in received.decode().lower()
    assert raw.headers["x-veriproxy-status"] == "redacted"
