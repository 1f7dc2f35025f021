"""The no-leak promise over the whole request matrix (issue 26, "How it is shown"): routes x
stream or not x n x logprobs x tools x structured output x both stream modes. The emulator
answers a sentence with nothing to check and one that cites a fabricated PMID, in whatever
shape the request asks for (text, JSON, tool-call arguments, every choice, with logprobs); both
policies redact the fabricated citation (``clinical-strict``: gate, ``on_verifier_error:
closed``; ``veterinary``: annotate). The real openai SDK sends the request through one real
proxy (bundled verifier), and every byte it received is searched for the fabricated
sentence's words.

Where a policy withholds (gate mode; annotate mode when not streamed), the words are in no byte
and the answer is never ``verified``. Where the design delivers them (an annotate stream sends
text before it is verified; an answer the proxy cannot verify passes as ``unverified`` under a
policy that does not fail closed), the case says so in its parametrization, and the test checks
that the words did arrive, so the shape really carried them, and were never called
``verified``. Where a gate withholds a whole shape it cannot verify (a Responses function call),
nothing of it arrives and the report says why. Combinations the API does not offer are skipped
with the reason.

On the Responses API the emulator answers ``tools`` with a ``function_call`` item and, asked
for logprobs, puts them on the ``output_text`` part and each text delta
(:mod:`proxy.testing.emulator_responses`), so those cells carry the words too."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import openai
import pytest

from proxy.app import create_app
from proxy.config import settings_from_mapping
from proxy.testing.server_thread import RunningEmulator, RunningProxy, ServerThread
from tests.conftest import sdk_client
from tests.proxy.ibuprofen import DOCUMENTS, QUESTION, VERIFICATION

WORD = "ZEBRAQUUX"
FAKE_PMID = "99999999"
# A sentence with nothing to check (released at once, cheaply), then one that cites a PMID the
# evidence does not hold: the verifier's verdict on it does not matter, its citation is invalid.
OPENING = "Here is what I found."
ANSWER = f"{OPENING} Ibuprofen also halves the rate of {WORD} infection [PMID:{FAKE_PMID}]."
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "report",
            "parameters": {"type": "object", "properties": {"answer": {"type": "string"}}},
        },
    }
]
RESPONSES_TOOLS = [{"type": "function", **TOOLS[0]["function"]}]
POLICIES = {"gate": "clinical-strict", "annotate": "veterinary"}


@dataclass(frozen=True, slots=True)
class Case:
    route: str
    stream: bool
    n: int
    logprobs: bool
    tools: bool
    structured: bool
    mode: str

    @property
    def id(self) -> str:
        flags = [
            self.route,
            "stream" if self.stream else "whole",
            f"n{self.n}",
            *(["logprobs"] if self.logprobs else []),
            *(["tools"] if self.tools else []),
            *(["json"] if self.structured else []),
            self.mode,
        ]
        return "-".join(flags)

    def not_offered(self) -> str | None:
        """Why the API has no such request (None: it has)."""
        if self.route == "completions" and self.tools:
            return "/v1/completions takes no tools"
        if self.route == "completions" and self.structured:
            return "/v1/completions takes no response format"
        if self.route == "responses" and self.n > 1:
            return "/v1/responses takes no n"
        return None

    def delivered_by_design(self) -> str | None:
        """Why the words reach the client by design (None: they are withheld)."""
        if self.mode == "annotate" and self.stream:
            return "an annotate stream sends text before it is verified (redact is recorded)"
        if self.mode == "annotate" and self.route == "completions" and self.n > 1:
            return "a completion with n > 1 cannot be verified; it passes unverified"
        if self.mode == "annotate" and self.route == "responses" and self.tools:
            return "a Responses function call is not verified; it passes unverified"
        return None

    def withheld_whole(self) -> str | None:
        """Why a gate withholds the whole answer, the words it may release included (None: it
        releases what its policy allows)."""
        if self.mode == "gate" and self.route == "responses" and self.tools:
            return "a Responses function call is not verified; a closed gate withholds it"
        return None


def _cases() -> Iterator[Any]:
    routes, flags, modes = ("chat", "completions", "responses"), (False, True), tuple(POLICIES)
    for route, stream, n, logprobs, tools, structured, mode in itertools.product(
        routes, flags, (1, 2), flags, flags, flags, modes
    ):
        case = Case(route, stream, n, logprobs, tools, structured, mode)
        marks = []
        if (reason := case.not_offered()) is not None:
            marks.append(pytest.mark.skip(reason=f"not offered by the API: {reason}"))
        yield pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(scope="module")
def matrix_proxy(_emulator_server: RunningEmulator) -> Iterator[RunningProxy]:
    """One proxy for the whole matrix: the policy is chosen per request."""
    settings = settings_from_mapping(
        {
            "default_upstream": {"base_url": _emulator_server.base_url},
            "retrieval": {"enabled": False},
            "verification": VERIFICATION,
        },
        environ={},
    )
    app = create_app(settings)
    with ServerThread(app) as server:
        yield RunningProxy(app, settings, server.url)


@pytest.fixture
def upstream(_emulator_server: RunningEmulator) -> RunningEmulator:
    _emulator_server.emulator.reset()
    return _emulator_server


def _request(client: openai.OpenAI, case: Case) -> bytes:
    """What the client received: the response's bytes, or an error response's."""
    options = {"veriproxy": {"documents": DOCUMENTS, "policy": POLICIES[case.mode]}}
    args: dict[str, Any] = {"model": "gpt-x", "stream": case.stream, "extra_body": options}
    if case.route == "chat":
        args |= {"messages": QUESTION, "n": case.n}
        if case.logprobs:
            args |= {"logprobs": True, "top_logprobs": 1}
        if case.tools:
            args["tools"] = TOOLS
        if case.structured:
            args["response_format"] = {"type": "json_object"}
        call: Any = client.chat.completions.with_raw_response.create
    elif case.route == "completions":
        args |= {"prompt": QUESTION[0]["content"], "n": case.n}
        if case.logprobs:
            args["logprobs"] = 1
        call = client.completions.with_raw_response.create
    else:
        args["input"] = QUESTION[0]["content"]
        if case.logprobs:
            args |= {"top_logprobs": 1, "include": ["message.output_text.logprobs"]}
        if case.tools:
            args["tools"] = RESPONSES_TOOLS
        if case.structured:
            args["text"] = {"format": {"type": "json_object"}}
        call = client.responses.with_raw_response.create
    try:
        received: bytes = call(**args).http_response.read()
    except openai.APIStatusError as exc:
        received = exc.response.content
    return received


def _reports(received: bytes) -> list[dict[str, Any]]:
    """Every report in the bytes (a body, or each event of a stream): a ``verification``
    object with a ``status``."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            report = value.get("verification")
            if isinstance(report, dict) and "status" in report:  # not a sentence's annotation
                found.append(report)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in received.splitlines():
        text = line.removeprefix(b"data: ")
        if text.startswith(b"{"):
            walk(json.loads(text))
    return found


@pytest.mark.parametrize("case", list(_cases()))
def test_nothing_withheld_reaches_the_client(
    matrix_proxy: RunningProxy, upstream: RunningEmulator, case: Case
) -> None:
    answer = json.dumps({"answer": ANSWER})
    upstream.emulator.reply = answer if case.structured else ANSWER
    upstream.emulator.tool_arguments = answer
    received = _request(sdk_client(matrix_proxy.base_url), case)
    if case.route == "responses":  # the upstream was asked for them, so its answer has them
        sent = upstream.emulator.stats.requests[-1]
        assert ("top_logprobs" in sent, "tools" in sent) == (case.logprobs, case.tools)
    text = received.decode("utf-8", "replace")
    leaked = [w for w in (WORD, FAKE_PMID) if w in text]
    statuses = [r["status"] for r in _reports(received)]
    assert "verified" not in statuses, text
    if case.delivered_by_design() is not None:
        assert leaked and statuses, text  # the shape carried the words, and said so
        return
    assert leaked == [], text
    if case.mode == "gate" and case.route == "completions" and case.n > 1:
        assert json.loads(text)["error"]["code"] == "unverifiable_request"
        return
    assert statuses, text  # reported: never passed silently
    if case.withheld_whole() is not None:
        assert OPENING not in text and set(statuses) == {"blocked"}, text
        return
    assert OPENING in text  # what the policy allows was released
