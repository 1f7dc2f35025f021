"""A small, real OpenAI-compatible upstream for tests and benchmarks.

``Emulator(reply=...).app()`` is a Starlette app answering ``POST /v1/chat/completions``
(streaming and not) and ``GET /v1/models`` in OpenAI's exact wire format, and the other routes
of :mod:`proxy.testing.emulator_api` (embeddings, moderations, files, completions, responses). Run
it under uvicorn on loopback (see :mod:`proxy.testing.server_thread`, or
``python -m proxy.testing.emulator --port 9100``).

What it answers:

* text: ``reply`` -- a fixed string, a callable ``(request_body) -> str`` such as
  :class:`RecordedReplies` (``--replies FILE.jsonl`` replays recorded answers), or None to echo
  the last user message. ``n`` choices, ``logprobs`` and
  ``stream_options.include_usage`` are honoured; usage counts whitespace-separated words.
* tool calls: when the request has ``tools`` (and ``tool_choice`` is not ``"none"`` and the
  last message is not a tool result), it calls the first tool with ``tool_arguments``.

Failure modes on demand, from the ``X-Emulator-Mode`` header or a model named ``emu-<mode>``
(comma-separated to combine): ``error-<status>`` (OpenAI error envelope with that status; a
401 echoes the caller's key in its message, as some providers do, so scrubbing can be tested),
``slow-<ms>`` (wait before answering), ``drip-<ms>`` (wait between stream chunks), ``die``
(drop the connection mid-response), ``malformed`` (a stream event that is not JSON / a body
that is not JSON), ``nodone`` (end the stream cleanly without ``[DONE]``), ``first-<n>`` (the
other modes apply to the first n requests with this mode text only, then it answers normally:
a transient fault that a retry gets past), ``hostile-<shape>`` (the answer in one of the
unusual shapes of :mod:`proxy.testing.hostile`, on chat, completions and responses).

:class:`EmulatorStats` records every request body and header set and counts streams opened,
completed and cancelled by the client (thread-safe; tests wait on it).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import itertools
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from proxy.testing import hostile
from proxy.testing.emulator_api import ApiRoutes
from proxy.testing.emulator_responses import content_text

Reply = str | Callable[[Mapping[str, Any]], str] | None
JSON = "application/json"
MODE_HEADER = "x-emulator-mode"
MODEL_MODE_PREFIX = "emu-"
_TOKEN = re.compile(r"\S+\s*|\s+")


class EmulatedCrash(Exception):
    """Raised inside a response to make uvicorn drop the connection (the ``die`` mode)."""


@dataclass
class EmulatorStats:
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    streams_opened: int = 0
    streams_completed: int = 0
    streams_cancelled: int = 0
    _cond: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def record(self, body: dict[str, Any], headers: Mapping[str, str]) -> None:
        with self._cond:
            self.requests.append(body)
            self.headers.append(dict(headers))
            self._cond.notify_all()

    def stream_event(self, *, opened: bool = False, completed: bool = False) -> None:
        with self._cond:
            if opened:
                self.streams_opened += 1
            elif completed:
                self.streams_completed += 1
            else:
                self.streams_cancelled += 1
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[EmulatorStats], bool], timeout: float = 5.0) -> bool:
        """Block until ``predicate(stats)`` holds; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self), timeout)

    @property
    def streams_open(self) -> int:
        with self._cond:
            return self.streams_opened - self.streams_completed - self.streams_cancelled

    def reset(self) -> None:
        with self._cond:
            self.requests.clear()
            self.headers.clear()
            self.streams_opened = self.streams_completed = self.streams_cancelled = 0


@dataclass(frozen=True, slots=True)
class Modes:
    error: int | None = None
    slow_s: float = 0.0
    drip_s: float = 0.0
    die: bool = False
    malformed: bool = False
    nodone: bool = False
    first: int | None = None
    hostile: str | None = None  # an answer shape of proxy.testing.hostile

    @classmethod
    def parse(cls, text: str) -> Modes:
        kwargs: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, arg = part.partition("-")
            if name == "error":
                kwargs["error"] = int(arg)
            elif name == "first":
                kwargs["first"] = int(arg)
            elif name == "hostile":
                kwargs["hostile"] = arg
            elif name in ("slow", "drip"):
                kwargs[f"{name}_s"] = int(arg) / 1000
            elif name in ("die", "malformed", "nodone"):
                kwargs[name] = True
        return cls(**kwargs)


class Emulator:
    def __init__(
        self,
        reply: Reply = None,
        *,
        tool_arguments: str = '{"query": "emulated"}',
        drip_s: float = 0.0,
    ) -> None:
        self._defaults = (reply, tool_arguments, drip_s)
        self.stats = EmulatorStats()
        self._ids = itertools.count(1)
        self.api = ApiRoutes(self)  # embeddings, moderations, files, completions, responses
        self.reset()

    def reset(self) -> None:
        """Back to the constructor's answers, with empty stats."""
        self.reply, self.tool_arguments, self.drip_s = self._defaults
        self._mode_counts: collections.Counter[str] = collections.Counter()
        self.stats.reset()
        if hasattr(self, "api"):
            self.api.files.clear()

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                *self.api.routes(),
            ]
        )

    async def _models(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": "emulator", "object": "model", "created": 0, "owned_by": "emu"}],
            }
        )

    def modes(self, request: Request, model: str) -> Modes:
        """The failure modes this request asks for (header and ``emu-<mode>`` model name)."""
        mode_text = request.headers.get(MODE_HEADER, "")
        if model.startswith(MODEL_MODE_PREFIX):
            mode_text += "," + model[len(MODEL_MODE_PREFIX) :]
        modes = Modes.parse(mode_text)
        if modes.first is not None:
            self._mode_counts[mode_text] += 1
            if self._mode_counts[mode_text] > modes.first:
                modes = Modes()
        return modes

    async def failure(
        self, request: Request, model: str, modes: Modes | None = None
    ) -> Response | None:
        """Wait as ``slow-<ms>`` asks, then the error response ``error-<status>`` asks for."""
        modes = modes or self.modes(request, model)
        if modes.slow_s:
            await asyncio.sleep(modes.slow_s)
        if modes.error is not None:
            return _error(modes.error, request.headers.get("authorization", ""))
        return None

    def answer_text(self, body: Mapping[str, Any]) -> str:
        """The text answer to a chat-shaped body: ``reply``, or the last user message echoed."""
        if callable(self.reply):
            return self.reply(body)
        if self.reply is not None:
            return self.reply
        return _last_user_text(list(body.get("messages") or []))

    async def _chat(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.stats.record(body, request.headers)
        modes = self.modes(request, str(body.get("model", "")))
        failure = await self.failure(request, "", modes)
        if failure is not None:
            return failure
        if modes.hostile is not None:
            text = self.answer_text(body)
            if body.get("stream"):
                return _TrackedStream(self, _aiter(hostile.chat_events(modes.hostile, text)), modes)
            return Response(hostile.chat_completion(modes.hostile, text), media_type=JSON)
        answer = _Answer.build(self, body)
        if body.get("stream"):
            return _TrackedStream(self, self._events(answer, body, modes), modes)
        if modes.die:
            return _TrackedStream(self, _die_after(b'{"id": "'), modes, media_type=None)
        if modes.malformed:
            return Response(b'{"id": "chatcmpl-broken", ', media_type="application/json")
        return JSONResponse(answer.completion())

    async def _events(
        self, answer: _Answer, body: Mapping[str, Any], modes: Modes
    ) -> AsyncIterator[bytes]:
        drip = modes.drip_s or self.drip_s
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        for index, chunk in enumerate(answer.chunks(include_usage)):
            if index and drip:
                await asyncio.sleep(drip)
            if modes.die and index == 2:
                raise EmulatedCrash("emulated upstream crash")
            if modes.malformed and index == 2:
                yield b"data: {this is not json\n\n"
                continue
            yield b"data: " + json.dumps(chunk).encode() + b"\n\n"
        if not modes.nodone:
            yield b"data: [DONE]\n\n"


class _TrackedStream(StreamingResponse):
    """Counts the stream as completed, or cancelled when the client went away first."""

    def __init__(
        self,
        emulator: Emulator,
        content: AsyncIterator[bytes],
        modes: Modes,
        media_type: str | None = "text/event-stream",
    ) -> None:
        super().__init__(content, media_type=media_type)
        self._stats = emulator.stats
        self._content = content
        self.finished = False

    async def stream_response(self, send: Send) -> None:
        await super().stream_response(send)
        self.finished = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._stats.stream_event(opened=True)
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._content.aclose()  # type: ignore[attr-defined]
            self._stats.stream_event(completed=self.finished)


async def _aiter(events: Iterable[bytes]) -> AsyncIterator[bytes]:
    for event in events:
        yield event


async def _die_after(prefix: bytes) -> AsyncIterator[bytes]:
    yield prefix
    raise EmulatedCrash("emulated upstream crash")


def _error(status: int, authorization: str) -> JSONResponse:
    kinds = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    headers = {"retry-after": "0"} if status == 429 else None
    message = f"emulated error {status}"
    if status == 401:
        # Like some providers, echo the key back: the proxy must scrub it.
        message = f"Incorrect API key provided: {authorization.removeprefix('Bearer ')}"
    return JSONResponse(
        {
            "error": {
                "message": message,
                "type": kinds.get(status, "server_error" if status >= 500 else "invalid_request"),
                "param": None,
                "code": f"emulated_{status}",
            }
        },
        status_code=status,
        headers=headers,
    )


@dataclass(frozen=True, slots=True)
class _Answer:
    id: str
    created: int
    model: str
    text: str
    n: int
    logprobs: bool
    tool: str | None
    tool_arguments: str
    prompt_tokens: int

    @classmethod
    def build(cls, emulator: Emulator, body: Mapping[str, Any]) -> _Answer:
        messages = list(body.get("messages") or [])
        text = emulator.answer_text(body)
        return cls(
            id=f"chatcmpl-emu{next(emulator._ids)}",
            created=int(time.time()),
            model=str(body.get("model", "")),
            text=text,
            n=int(body.get("n") or 1),
            logprobs=bool(body.get("logprobs")),
            tool=_tool_to_call(body, messages),
            tool_arguments=emulator.tool_arguments,
            prompt_tokens=sum(len(_text_of(m).split()) for m in messages),
        )

    @property
    def completion_tokens(self) -> int:
        return self.n * (len(self.text.split()) if self.tool is None else 1)

    def usage(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }

    def _tool_call(self, with_arguments: bool) -> dict[str, Any]:
        return {
            "id": "call_emu_1",
            "type": "function",
            "function": {
                "name": self.tool,
                "arguments": self.tool_arguments if with_arguments else "",
            },
        }

    def _logprobs(self, tokens: list[str]) -> dict[str, Any] | None:
        if not self.logprobs:
            return None
        return {
            "content": [
                {"token": t, "logprob": -0.01, "bytes": list(t.encode()), "top_logprobs": []}
                for t in tokens
            ],
            "refusal": None,
        }

    def completion(self) -> dict[str, Any]:
        if self.tool is not None:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [self._tool_call(True)],
                "refusal": None,
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": self.text, "refusal": None}
            finish = "stop"
        choice_logprobs = self._logprobs(_TOKEN.findall(self.text)) if self.tool is None else None
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": "fp_emulator",
            "choices": [
                {
                    "index": i,
                    "message": message,
                    "logprobs": choice_logprobs,
                    "finish_reason": finish,
                }
                for i in range(self.n)
            ],
            "usage": self.usage(),
        }

    def _chunk(self, choices: list[dict[str, Any]], include_usage: bool) -> dict[str, Any]:
        chunk: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": "fp_emulator",
            "choices": choices,
        }
        if include_usage:
            chunk["usage"] = None
        return chunk

    def chunks(self, include_usage: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i in range(self.n):
            out.append(
                self._chunk([_delta(i, {"role": "assistant", "content": ""})], include_usage)
            )
        if self.tool is not None:
            for i in range(self.n):
                call = {"index": 0, **self._tool_call(False)}
                out.append(self._chunk([_delta(i, {"tool_calls": [call]})], include_usage))
                for piece in _pieces(self.tool_arguments, 8):
                    args = {"index": 0, "function": {"arguments": piece}}
                    out.append(self._chunk([_delta(i, {"tool_calls": [args]})], include_usage))
            finish = "tool_calls"
        else:
            for token in _TOKEN.findall(self.text):
                for i in range(self.n):
                    choice = _delta(i, {"content": token}, self._logprobs([token]))
                    out.append(self._chunk([choice], include_usage))
            finish = "stop"
        for i in range(self.n):
            out.append(self._chunk([_delta(i, {}, finish_reason=finish)], include_usage))
        if include_usage:
            final = self._chunk([], include_usage)
            final["usage"] = self.usage()
            out.append(final)
        return out


def _delta(
    index: int,
    delta: dict[str, Any],
    logprobs: dict[str, Any] | None = None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    return {"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish_reason}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _text_of(message: Mapping[str, Any]) -> str:
    return content_text(message.get("content"))


def _last_user_text(messages: list[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _text_of(message)
    return ""


def _tool_to_call(body: Mapping[str, Any], messages: list[Mapping[str, Any]]) -> str | None:
    tools = body.get("tools") or []
    if not tools or body.get("tool_choice") == "none":
        return None
    if messages and messages[-1].get("role") == "tool":
        return None
    return str(tools[0].get("function", {}).get("name", "tool"))


class RecordedReplies:
    """Replays recorded answers: JSONL lines ``{"prompt": ..., "answer": ...}``, matched on the
    last user message (whitespace-normalised); unknown prompts are echoed."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._answers: dict[str, str] = {}
        for line in lines:
            if line.strip():
                entry = json.loads(line)
                self._answers[_normalise(str(entry["prompt"]))] = str(entry["answer"])

    def __call__(self, body: Mapping[str, Any]) -> str:
        prompt = _last_user_text(list(body.get("messages") or []))
        return self._answers.get(_normalise(prompt), prompt)


def _normalise(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Run the OpenAI-compatible upstream emulator.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    answer = parser.add_mutually_exclusive_group()
    answer.add_argument("--reply", default=None, help="fixed answer text (default: echo)")
    answer.add_argument(
        "--replies", type=Path, help='recorded answers, JSONL of {"prompt": ..., "answer": ...}'
    )
    args = parser.parse_args()
    reply: Reply = args.reply
    if args.replies is not None:
        reply = RecordedReplies(args.replies.read_text(encoding="utf-8").splitlines())
    uvicorn.run(Emulator(reply=reply).app(), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
