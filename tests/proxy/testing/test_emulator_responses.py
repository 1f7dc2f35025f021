"""The emulator's Responses API answer, read by the real openai SDK: function calls when tools
are given, logprobs on output_text when asked, whole and streamed."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

from proxy.testing.server_thread import RunningEmulator
from tests.conftest import sdk_client

TOOL = {"type": "function", "name": "report", "parameters": {"type": "object"}}
ARGUMENTS = '{"answer": "Aspirin thins the blood."}'


def sdk(emulator: RunningEmulator) -> openai.OpenAI:
    return sdk_client(emulator.base_url, "k")


def test_tools_get_a_function_call(emulator: RunningEmulator) -> None:
    emulator.emulator.tool_arguments = ARGUMENTS
    response = sdk(emulator).responses.create(model="m", input="q", tools=[TOOL])  # type: ignore[list-item]
    [call] = response.output
    assert isinstance(call, ResponseFunctionToolCall)
    assert (call.name, call.arguments, call.status) == ("report", ARGUMENTS, "completed")
    assert response.output_text == ""


def test_a_streamed_function_call_arrives_in_argument_deltas(emulator: RunningEmulator) -> None:
    emulator.emulator.tool_arguments = ARGUMENTS
    with sdk(emulator).responses.stream(model="m", input="q", tools=[TOOL]) as stream:  # type: ignore[list-item]
        events = list(stream)
        final = stream.get_final_response()
    deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(deltas) > 1 and "".join(deltas) == ARGUMENTS
    [done] = [e for e in events if e.type == "response.function_call_arguments.done"]
    assert (done.name, done.arguments) == ("report", ARGUMENTS)
    [call] = final.output
    assert isinstance(call, ResponseFunctionToolCall) and call.arguments == ARGUMENTS


@pytest.mark.parametrize(
    "tool_choice, given",
    [
        ("none", "q"),
        ("auto", [{"type": "function_call_output", "call_id": "call_emu_1", "output": "done"}]),
    ],
)
def test_no_call_when_refused_or_after_a_result(
    emulator: RunningEmulator, tool_choice: str, given: Any
) -> None:
    emulator.emulator.reply = "Answered."
    response = sdk(emulator).responses.create(
        model="m",
        input=given,
        tools=[TOOL],  # type: ignore[list-item]
        tool_choice=tool_choice,  # type: ignore[arg-type]
    )
    assert response.output_text == "Answered."


@pytest.mark.parametrize(
    "asked",
    [{"include": ["message.output_text.logprobs"]}, {"top_logprobs": 2}],
    ids=["include", "top_logprobs"],
)
def test_logprobs_on_output_text_when_asked(emulator: RunningEmulator, asked: Any) -> None:
    emulator.emulator.reply = "a b c"
    response = sdk(emulator).responses.create(model="m", input="q", **asked)
    [message] = response.output
    assert isinstance(message, ResponseOutputMessage)
    [part] = message.content
    assert part.type == "output_text" and part.logprobs is not None
    assert [t.token for t in part.logprobs] == ["a ", "b ", "c"]
    assert part.logprobs[0].bytes == list(b"a ")
    alternatives = len(part.logprobs[0].top_logprobs)
    assert alternatives == (1 if "top_logprobs" in asked else 0)


def test_streamed_deltas_carry_their_logprobs(emulator: RunningEmulator) -> None:
    emulator.emulator.reply = "a b c"
    events = list(
        sdk(emulator).responses.create(
            model="m", input="q", stream=True, top_logprobs=1,
            include=["message.output_text.logprobs"],
        )
    )  # fmt: skip
    deltas = [e for e in events if e.type == "response.output_text.delta"]
    assert [(e.delta, [lp.token for lp in e.logprobs]) for e in deltas] == [
        ("a ", ["a "]),
        ("b ", ["b "]),
        ("c", ["c"]),
    ]
    assert deltas[0].logprobs[0].top_logprobs is not None
    assert [t.token for t in deltas[0].logprobs[0].top_logprobs] == ["a "]
    [done] = [e for e in events if e.type == "response.output_text.done"]
    assert [lp.token for lp in done.logprobs] == ["a ", "b ", "c"]


def test_no_logprobs_unless_asked(emulator: RunningEmulator) -> None:
    emulator.emulator.reply = "a b"
    response = sdk(emulator).responses.create(model="m", input="q")
    [message] = response.output
    assert isinstance(message, ResponseOutputMessage)
    assert message.content[0].type == "output_text" and message.content[0].logprobs == []
