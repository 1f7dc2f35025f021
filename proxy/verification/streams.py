"""The two stream modes of a policy: upstream chat chunks in, typed events out
(:mod:`proxy.verification.events`), which each API shape renders at its edge (chat:
:mod:`proxy.verification.chat_stream`). Choice 0 is read by :mod:`proxy.verification.held`;
each mode has its module (:mod:`~proxy.verification.annotate`, :mod:`~proxy.verification.gate`)
and both end as :mod:`proxy.verification.stream_end` says.

``annotate``: every upstream chunk goes to the client at once; sentences are verified in a
background task and their annotation chunks follow right after the next upstream chunk (or at
the end). A sentence the policy blocks stops the stream at the first point the block is known,
even when the upstream has already finished (its finish chunk is held until verification
ends): the block message and ``finish_reason: "content_filter"`` follow, and the upstream is
cancelled. The blocked sentence itself was already delivered, and with a fast upstream so may
be more: the report therefore says ``flagged`` with ``delivered_before_block: true``, never
``blocked``. Text already streamed cannot be taken back: ``redact`` is recorded, not enforced.
Annotate holds no more than gate mode does: past ``MAX_BACKLOG_CHARS`` of text waiting for the
verifier, it reads the upstream only as fast as the verifier goes; the stream's total time and
size (``limits.stream_seconds``, ``max_stream_bytes``) and each event's size are bounded below
it, in both modes. An answer that stops early (a limit, an upstream failure, the client gone)
is reported unverified, and never ``blocked`` once its text reached the client.

``gate``: nothing of the upstream's chunks is forwarded. Choice 0 is read strictly
(:func:`~proxy.verification.shapes.streamed_choices`) and every chunk the client gets is
rendered (:mod:`proxy.verification.render`): the role at once; each sentence only once it is
verified and allowed (a redacted sentence is replaced by the policy's message, a blocked one
never reaches the client); fields understood but not verified (a refusal, reasoning, a legacy
function call) at the end, unless the answer is withheld; the finish reason and usage counts
last. An entry whose index is not an integer, a field the proxy does not understand, or a
shape it cannot read is never sent, and makes the answer ``unverified``: the policy's
``on_verifier_error`` decides (``closed``: blocked).

Tool calls and a JSON answer (``response_format``) cannot be judged until they are complete:
their fragments are collected, and their string values are verified when the upstream is done
(:mod:`proxy.verification.answers`). In gate mode they are held until then and released whole,
redacted value by value (one content chunk of valid JSON, one chunk of complete tool calls); a
block releases none of them, and a JSON answer gets no block text appended (it would break the
JSON a client parses as it streams): the policy's message comes as the answer's ``refusal``, with
``finish_reason: "stop"``, as OpenAI declines a structured answer (so does a forced tool call's).

Order, in both modes, as clients expect it: content, sentence annotations, the report, then the
upstream's ``finish_reason`` chunk and its usage chunk (held until verification ends: many
clients stop reading at ``finish_reason``, and the SDK's stream helper keeps the usage of the
last chunk); the chat service writes ``data: [DONE]`` last.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from policies import StreamMode
from proxy.streaming import StreamChunk
from proxy.verification.annotate import Annotate
from proxy.verification.events import StreamEvent
from proxy.verification.gate import Gate
from proxy.verification.held import StreamShape
from proxy.verification.session import VerificationSession
from proxy.verification.stream_end import Finished, failure_reason, run_mode

__all__ = ["StreamShape", "failure_reason", "verified_stream"]


def verified_stream(
    chunks: AsyncIterator[StreamChunk],
    session: VerificationSession,
    shape: StreamShape,
    finished: Finished,
) -> AsyncIterator[StreamEvent]:
    """Choice 0 in the stream mode of the session's policy; ``finished`` gets its outcome."""
    gate = session.policy.stream_mode is StreamMode.GATE
    mode = Gate(session, shape) if gate else Annotate(session, shape)
    return run_mode(mode, chunks, finished)
