"""The allowlist: what of an upstream's chat answer the proxy writes to the client.

Whatever a policy may withhold is rendered here from what was parsed and verified, never
copied from the upstream's objects: a field the proxy does not understand is not sent at all
(:mod:`proxy.verification.shapes` makes it a reason the answer is not ``verified``). Fields
the proxy understands but does not verify (a refusal, reasoning, a legacy function call,
audio) go out only when the answer is not withheld (``unread=True``), so under
``on_verifier_error: closed`` they never do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.verification.shapes import FINISH_REASONS, content_text

ENVELOPE = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
_TOKEN_FIELDS = ("token", "logprob", "bytes")


def envelope(data: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The identifying fields of a completion or chunk (strings and numbers only)."""
    out: dict[str, Any] = {"object": kind}
    for key in ENVELOPE:
        value = data.get(key)
        if key != "object" and isinstance(value, (str, int)) and not isinstance(value, bool):
            out[key] = value
    return out


def usage(value: object) -> dict[str, Any] | None:
    """Token counts: numbers, and objects of numbers (``*_tokens_details``), nothing else."""
    if not isinstance(value, Mapping):
        return None
    out: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, Mapping):
            counts = usage(item)
            if counts:
                out[str(key)] = counts
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            out[str(key)] = item
    return out or None


def finish_reason(value: object, default: str = "stop") -> str:
    return value if isinstance(value, str) and value in FINISH_REASONS else default


def token(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One token entry: its token, logprob and bytes, and its alternatives' (``top_logprobs``)."""
    out = _token_only(entry)
    tops = entry.get("top_logprobs")
    top_entries = tops if isinstance(tops, list) else ()
    out["top_logprobs"] = [_token_only(t) for t in top_entries if _is_token(t)]
    return out


def _is_token(entry: object) -> bool:
    return isinstance(entry, Mapping) and isinstance(entry.get("token"), str)


def _token_only(entry: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"token": entry["token"], "logprob": None, "bytes": None}
    logprob = entry.get("logprob")
    if isinstance(logprob, (int, float)) and not isinstance(logprob, bool):
        out["logprob"] = logprob
    raw = entry.get("bytes")
    if isinstance(raw, list) and all(isinstance(b, int) and 0 <= b < 256 for b in raw):
        out["bytes"] = raw
    return out


def logprobs(entries: list[Mapping[str, Any]] | None) -> dict[str, Any] | None:
    """A ``logprobs`` object for rendered token entries (None: none to send)."""
    return None if entries is None else {"content": [token(e) for e in entries], "refusal": None}


def tool_calls(calls: object) -> list[dict[str, Any]]:
    """Function calls with their id, name and arguments (each a string)."""
    out = []
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        rendered: dict[str, Any] = {"type": "function", "function": _function(function)}
        if isinstance(call.get("id"), str):
            rendered = {"id": call["id"], **rendered}
        out.append(rendered)
    return out


def _function(function: Mapping[str, Any]) -> dict[str, str]:
    return {
        key: value for key in ("name", "arguments") if isinstance(value := function.get(key), str)
    }


def unread_fields(source: Mapping[str, Any]) -> dict[str, Any]:
    """The unverified fields the proxy understands, rendered (a string each, a function call's
    name and arguments, audio's id, data, expiry and transcript)."""
    out: dict[str, Any] = {}
    for key in ("refusal", "reasoning_content"):
        if isinstance(source.get(key), str) and source[key]:
            out[key] = source[key]
    if isinstance(call := source.get("function_call"), Mapping):
        out["function_call"] = _function(call)
    if isinstance(audio := source.get("audio"), Mapping):
        keys = ("id", "data", "expires_at", "transcript")
        out["audio"] = {k: audio[k] for k in keys if isinstance(audio.get(k), (str, int))}
    return out


def message(source: Mapping[str, Any], *, unread: bool) -> dict[str, Any]:
    """An assistant message: its content as text (a parts list joined, as it was verified), its
    tool calls, and with ``unread`` the unverified fields the proxy understands."""
    content = source.get("content")
    text: str | None = content if isinstance(content, str) or content is None else None
    if isinstance(content, list):
        text = content_text(content)[0]
    out: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    calls = tool_calls(source.get("tool_calls"))
    if calls:
        out["tool_calls"] = calls
    if unread:
        out.update(unread_fields(source))
    return out
