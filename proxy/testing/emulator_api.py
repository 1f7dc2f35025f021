"""The emulator's other OpenAI routes: embeddings, moderations, files, legacy completions and
the Responses API, in OpenAI's wire format (what the openai SDK sends and parses).

* ``POST /v1/embeddings``: a deterministic vector per input (``dimensions``, default 8), as
  floats or ``encoding_format: base64`` (the SDK's default).
* ``POST /v1/moderations``: nothing flagged.
* ``POST /v1/files`` (multipart), ``GET /v1/files``, ``GET /v1/files/{id}``,
  ``GET /v1/files/{id}/content``: files kept in memory; ``uploads`` records each upload's size.
* ``POST /v1/completions``: the emulator's answer as ``text_completion`` (streamed and not).
* ``POST /v1/responses``: the answer as a ``response`` with one message item (logprobs when
  asked) or a function call (when ``tools`` are given), streamed or not
  (:mod:`proxy.testing.emulator_responses`).

The answer and the failure modes are the chat route's (``reply``, ``X-Emulator-Mode``).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import struct
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from proxy.testing import hostile
from proxy.testing.emulator_responses import ResponsesReply, last_input_text, pieces

if TYPE_CHECKING:
    from proxy.testing.emulator import Emulator, Modes


@dataclass
class StoredFile:
    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


class ApiRoutes:
    """The routes above, sharing the emulator's answer, modes and stats."""

    def __init__(self, emulator: Emulator) -> None:
        self._emu = emulator
        self.files: dict[str, StoredFile] = {}
        self._ids = itertools.count(1)

    def routes(self) -> list[Route]:
        return [
            Route("/v1/embeddings", self._embeddings, methods=["POST"]),
            Route("/v1/moderations", self._moderations, methods=["POST"]),
            Route("/v1/files", self._upload, methods=["POST"]),
            Route("/v1/files", self._list_files, methods=["GET"]),
            Route("/v1/files/{file_id}", self._get_file, methods=["GET"]),
            Route("/v1/files/{file_id}/content", self._file_content, methods=["GET"]),
            Route("/v1/completions", self._completions, methods=["POST"]),
            Route("/v1/responses", self._responses, methods=["POST"]),
        ]

    # -- helpers ---------------------------------------------------------------------------

    async def _json(self, request: Request) -> tuple[dict[str, Any], Response | None]:
        """The body (recorded), and the error to answer instead when a mode asks for one."""
        body, failure, _ = await self._json_modes(request)
        return body, failure

    async def _json_modes(self, request: Request) -> tuple[dict[str, Any], Response | None, Modes]:
        body = json.loads(await request.body())
        self._emu.stats.record(body, request.headers)
        modes = self._emu.modes(request, str(body.get("model", "")))
        failure = await self._emu.failure(request, "", modes)
        return body, failure, modes

    def _answer(self, body: Mapping[str, Any], prompt: str) -> str:
        return self._emu.answer_text({**body, "messages": [{"role": "user", "content": prompt}]})

    # -- embeddings, moderations -----------------------------------------------------------

    async def _embeddings(self, request: Request) -> Response:
        body, failure = await self._json(request)
        if failure is not None:
            return failure
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str | int) else list(inputs or [])
        dims = int(body.get("dimensions") or 8)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = _vector(json.dumps(text), dims)
            encoded: Any = vector
            if as_base64:
                encoded = base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(str(t).split()) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body.get("model"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def _moderations(self, request: Request) -> Response:
        body, failure = await self._json(request)
        if failure is not None:
            return failure
        return JSONResponse(
            {
                "id": f"modr-emu{next(self._ids)}",
                "model": body.get("model") or "omni-moderation-latest",
                "results": [{"flagged": False, "categories": {}, "category_scores": {}}],
            }
        )

    # -- files -----------------------------------------------------------------------------

    async def _upload(self, request: Request) -> Response:
        raw = await request.body()
        self._emu.stats.record({"upload_bytes": len(raw)}, request.headers)
        head = f"Content-Type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields: dict[str, Any] = {}
        filename = "upload"
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            if part.get_filename():
                filename = str(part.get_filename())
            fields[str(name)] = payload
        if "file" not in fields:
            return _bad_request("missing file")
        stored = StoredFile(
            id=f"file-emu{next(self._ids)}",
            filename=filename,
            purpose=fields.get("purpose", b"").decode(),
            content=fields["file"],
        )
        self.files[stored.id] = stored
        return JSONResponse(stored.describe())

    async def _list_files(self, request: Request) -> Response:
        data = [f.describe() for f in self.files.values()]
        return JSONResponse({"object": "list", "data": data, "has_more": False})

    async def _get_file(self, request: Request) -> Response:
        stored = self.files.get(request.path_params["file_id"])
        if stored is None:
            return _not_found(request.path_params["file_id"])
        return JSONResponse(stored.describe())

    async def _file_content(self, request: Request) -> Response:
        stored = self.files.get(request.path_params["file_id"])
        if stored is None:
            return _not_found(request.path_params["file_id"])
        return Response(stored.content, media_type="application/octet-stream")

    # -- legacy completions ----------------------------------------------------------------

    async def _completions(self, request: Request) -> Response:
        body, failure, modes = await self._json_modes(request)
        if failure is not None:
            return failure
        prompt = body.get("prompt")
        text = self._answer(body, prompt if isinstance(prompt, str) else json.dumps(prompt))
        base = {
            "id": f"cmpl-emu{next(self._ids)}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": body.get("model"),
        }
        choices = [{"text": text, "index": 0, "logprobs": None, "finish_reason": "stop"}]
        if modes.hostile is not None:
            choices = hostile.completion_choices(modes.hostile, text)
        if not body.get("stream"):
            return JSONResponse({**base, "choices": choices, "usage": _usage(prompt, text)})

        async def events() -> AsyncIterator[bytes]:
            for piece in pieces(text):
                for choice in choices:
                    yield _data(
                        {**base, "choices": [{**choice, "text": piece, "finish_reason": None}]}
                    )
            for choice in choices:
                yield _data({**base, "choices": [{**choice, "text": ""}]})
            yield b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    # -- responses -------------------------------------------------------------------------

    async def _responses(self, request: Request) -> Response:
        body, failure, modes = await self._json_modes(request)
        if failure is not None:
            return failure
        text = self._answer(body, last_input_text(body.get("input")))
        reply = ResponsesReply.build(body, next(self._ids), text, self._emu.tool_arguments)
        if modes.hostile is not None:
            envelope = reply.response("completed", with_output=False)
            if body.get("stream"):
                events = hostile.responses_events(modes.hostile, reply.text, envelope)
                return StreamingResponse(_framed(events), media_type="text/event-stream")
            output, extra = hostile.responses_output(modes.hostile, reply.text)
            return JSONResponse({**envelope, "output": output, **extra})
        if not body.get("stream"):
            return JSONResponse(reply.response("completed", with_output=True))
        return StreamingResponse(_framed(reply.events()), media_type="text/event-stream")


async def _framed(events: Iterator[dict[str, Any]]) -> AsyncIterator[bytes]:
    for number, event in enumerate(events):
        event["sequence_number"] = number
        yield f"event: {event['type']}\n".encode() + _data(event)


def _data(payload: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _vector(text: str, dims: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [round((digest[i % len(digest)] - 128) / 128, 4) for i in range(dims)]


def _usage(prompt: object, text: str) -> dict[str, int]:
    p, c = len(str(prompt).split()), len(text.split())
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def _bad_request(message: str) -> JSONResponse:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return JSONResponse({"error": error}, status_code=400)


def _not_found(file_id: str) -> JSONResponse:
    error = {
        "message": f"No such File object: {file_id}",
        "type": "invalid_request_error",
        "param": "id",
        "code": None,
    }
    return JSONResponse({"error": error}, status_code=404)
