"""``limits:``, what one request may ask for (enforced by :mod:`proxy.limits`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Gt

from proxy.settings._section import Section

DEFAULT_MAX_MESSAGES = 1024
DEFAULT_MAX_PROMPT_CHARS = 2_000_000
DEFAULT_MAX_STREAMS_PER_KEY = 64
DEFAULT_REQUEST_SECONDS = 900.0
DEFAULT_STREAM_SECONDS = 1800.0
# One upstream SSE event may not exceed this; OpenAI's are under 10 KB.
DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024
# A whole upstream stream: a 128k-token answer is ~30 MB of chat chunks (more with logprobs).
DEFAULT_MAX_STREAM_BYTES = 128 * 1024 * 1024
DEFAULT_MAX_EVIDENCE_CHARS = 1_000_000
DEFAULT_MAX_UPLOAD_BYTES = 512 * 1024 * 1024  # OpenAI's own file size limit


@dataclass(frozen=True, slots=True)
class Limits(Section):
    max_messages: Annotated[int, Ge(1)] = DEFAULT_MAX_MESSAGES
    max_prompt_chars: Annotated[int, Ge(1)] = DEFAULT_MAX_PROMPT_CHARS
    # Cap on the completion length a client may ask for; None = whatever the upstream allows.
    max_tokens: Annotated[int, Ge(1)] | None = None
    max_streams_per_key: Annotated[int, Ge(1)] = DEFAULT_MAX_STREAMS_PER_KEY
    # From the request's arrival to the whole non-streaming answer, or to the stream's start.
    request_seconds: Annotated[float, Gt(0)] = DEFAULT_REQUEST_SECONDS
    # From the stream's start to its end.
    stream_seconds: Annotated[float, Gt(0)] = DEFAULT_STREAM_SECONDS
    max_event_bytes: Annotated[int, Ge(1024)] = DEFAULT_MAX_EVENT_BYTES
    # The upstream's whole stream, in bytes: the text a verified stream holds for its report and
    # audit grows with it, so an upstream that never stops is cut here.
    max_stream_bytes: Annotated[int, Ge(1024)] = DEFAULT_MAX_STREAM_BYTES
    max_evidence_chars: Annotated[int, Ge(1)] = DEFAULT_MAX_EVIDENCE_CHARS
    # Streamed (non-JSON) bodies of passed-through routes: file, audio and image uploads.
    max_upload_bytes: Annotated[int, Ge(1)] = DEFAULT_MAX_UPLOAD_BYTES
