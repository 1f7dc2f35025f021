"""Property-based requests against a running proxy (in front of the emulator): whatever a client
sends to ``/v1/chat/completions`` or ``/v1/verify`` -- broken JSON, wrong types, odd headers,
nested garbage, lone surrogates, zero-width and full-width characters, combining marks, real
text from every corpus under ``../shared/data`` -- the proxy never answers 500, a stream never
ends in an error event, and every error is OpenAI's envelope."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.responses import PlainTextResponse

from bench.realtext import real_texts
from proxy.app import create_app
from proxy.auth import AuthMiddleware, FileKeyStore
from proxy.config import settings_from_mapping
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import ServerThread
from tests.proxy.routes.test_verify_route import model_dir  # noqa: F401 -- the tiny NLI model fixture

# Fields the emulator itself interprets; a real provider answers 400 to junk in them, the
# emulator may not, and this test is about the proxy's answers, not the emulator's.
EMULATOR_FIELDS = frozenset({"n", "logprobs", "tools", "tool_choice", "stream_options"})
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
content = (
    st.text(max_size=60)
    | st.lists(
        st.fixed_dictionaries(
            {"type": st.just("text"), "text": st.text(max_size=30) | json_values}
        ),
        max_size=3,
    )
    | json_values
)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "system", "assistant"]) | json_values},
    optional={"content": content, "name": json_values},
)
options = st.dictionaries(
    st.sampled_from(["retrieve", "verify", "policy", "documents", "other"]), json_values, max_size=4
)
extra_keys = st.text(min_size=1, max_size=10).filter(
    lambda k: k not in EMULATOR_FIELDS and k not in {"model", "messages", "stream", "veriproxy"}
)
chat_body = st.fixed_dictionaries(
    {},
    optional={
        "model": st.sampled_from(["gpt-test", ""]) | json_values,
        "messages": st.lists(message, max_size=4) | json_values,
        "stream": st.booleans() | json_values,
        "max_tokens": st.integers(min_value=-5, max_value=10**6) | json_values,
        "veriproxy": options | json_values,
    },
).flatmap(
    lambda body: st.dictionaries(extra_keys, json_values, max_size=3).map(lambda e: {**e, **body})
)
short_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80
) | st.sampled_from(["Metformin lowers HbA1c [PMID:1].", "It is safe. Dose is 5 mg [2]."])
evidence_item = st.fixed_dictionaries(
    {},
    optional={
        "pmid": st.sampled_from(["1", "2", ""]) | json_values,
        "title": short_text | json_values,
        "abstract": short_text | st.lists(short_text, max_size=3) | json_values,
        "sentences": st.lists(short_text, max_size=3) | json_values,
    },
)
verify_body = st.fixed_dictionaries(
    {},
    optional={
        "answer": short_text | json_values,
        "evidence": st.lists(evidence_item, max_size=3) | json_values,
        "question": short_text | json_values,
        "top_k": st.integers(min_value=-3, max_value=100) | json_values,
    },
).flatmap(
    lambda body: st.dictionaries(extra_keys, json_values, max_size=2).map(lambda e: {**e, **body})
)
# Unicode that has broken text pipelines: lone surrogates (valid JSON escapes, invalid UTF-8),
# invisible format characters, full-width lookalikes of ASCII, combining marks, units.
odd_characters = (
    st.characters(categories=["Cs", "Cf", "Mn", "Me", "Zs", "Sm", "So", "No"])
    | st.characters(min_codepoint=0xFF01, max_codepoint=0xFF5E)  # full-width forms
    | st.sampled_from(["\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "µ", "μ", "±"])
)
_REAL = [t for texts in real_texts(per_corpus=40).values() for t in texts] or [
    "Metformin 500 mg/d lowered HbA1c by 0.8 % (95 % CI 0.5\u20131.1; p < 0.001) in 1,204 adults.",
    "Plasma levels of 12 μmol/l and 3 µg/mL were seen ± 2 SD after i.v. dosing.",
]
real_text = st.sampled_from(_REAL)
unicode_text = st.lists(
    real_text | st.text(odd_characters, max_size=12) | st.text(max_size=12), max_size=4
).map(" ".join)
unicode_chat = st.fixed_dictionaries(
    {
        "model": st.just("gpt-test"),
        "messages": st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "system"]), "content": unicode_text}
            ),
            min_size=1,
            max_size=3,
        ),
        "stream": st.booleans(),
    },
    optional={
        "veriproxy": st.fixed_dictionaries(
            {"documents": st.lists(st.fixed_dictionaries({"text": unicode_text}), max_size=3)}
        )
    },
)
unicode_verify = st.fixed_dictionaries(
    {
        "answer": unicode_text.filter(str.strip),
        "evidence": st.lists(
            st.fixed_dictionaries({"pmid": st.sampled_from(["1", "2"]), "abstract": unicode_text}),
            max_size=3,
        ),
    }
)
header_values = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20).map(
    str.strip
)
headers = st.dictionaries(
    st.sampled_from(
        ["x-veriproxy-retrieve", "x-veriproxy-verify", "x-veriproxy-policy", "content-type"]
    ),
    header_values,
    max_size=3,
)


@pytest.fixture(scope="module")
def proxy_url(model_dir: Path) -> Iterator[str]:  # noqa: F811 -- the imported fixture
    """Verification and policies on (with a tiny NLI model), retrieval off."""
    with ServerThread(Emulator().app()) as upstream:
        verifier = {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}}
        raw = {
            "default_upstream": {"base_url": f"{upstream.url}/v1"},
            "retrieval": {"enabled": False},
            "verification": {"enabled": True, "verifier": verifier},
            "retry": {"max_attempts": 1},
            "limits": {"max_tokens": 100_000},
        }
        with ServerThread(create_app(settings_from_mapping(raw, environ={}))) as proxy:
            yield proxy.url


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=20) as http:
        yield http


def _check(resp: httpx.Response) -> None:
    assert resp.status_code != 500, resp.text
    if resp.status_code >= 400:
        error = resp.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
        assert isinstance(error["message"], str) and error["message"]
    elif resp.headers["content-type"].startswith("text/event-stream"):
        assert resp.text.rstrip().endswith("data: [DONE]")
        for line in resp.text.splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                assert "error" not in json.loads(line[6:]), line
    else:
        assert isinstance(resp.json(), dict)


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/verify"])
@FUZZ
@given(body=chat_body | verify_body, extra_headers=headers)
def test_structured_bodies(
    proxy_url: str,
    client: httpx.Client,
    path: str,
    body: dict[str, Any],
    extra_headers: dict[str, str],
) -> None:
    _check(client.post(proxy_url + path, json=body, headers=extra_headers))


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/verify"])
@FUZZ
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_raw_bodies(proxy_url: str, client: httpx.Client, path: str, raw: bytes) -> None:
    _check(client.post(proxy_url + path, content=raw, headers={"content-type": "application/json"}))


@FUZZ
@given(body=unicode_chat)
# Found by this test: a streamed U+0085 (NEL) cut the event where str.splitlines reads a line.
@example(
    body={"model": "gpt-test", "messages": [{"role": "user", "content": "0\x850"}], "stream": True}
)
def test_unicode_and_real_text_chat(
    proxy_url: str, client: httpx.Client, body: dict[str, Any]
) -> None:
    # json.dumps escapes lone surrogates (ensure_ascii), as a JavaScript client's JSON does.
    raw = json.dumps(body).encode()
    _check(client.post(proxy_url + "/v1/chat/completions", content=raw))


@FUZZ
@given(body=unicode_verify)
def test_unicode_and_real_text_verify(
    proxy_url: str, client: httpx.Client, body: dict[str, Any]
) -> None:
    _check(client.post(proxy_url + "/v1/verify", content=json.dumps(body).encode()))


@pytest.mark.parametrize("depth", [500, 990, 1_000, 100_000])
def test_deeply_nested_json(proxy_url: str, client: httpx.Client, depth: int) -> None:
    raw = '{"model": "gpt-test", "messages": [{"role": "user", "content": ' + "[" * depth
    raw += "]" * depth + "}]}"
    _check(client.post(proxy_url + "/v1/chat/completions", content=raw.encode()))


def test_deeply_nested_option_header(proxy_url: str, client: httpx.Client) -> None:
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
    resp = client.post(
        proxy_url + "/v1/chat/completions", json=body, headers={"x-veriproxy-policy": "[" * 5000}
    )
    _check(resp)


@FUZZ
@given(
    value=st.binary(max_size=120).filter(lambda b: b"\r" not in b and b"\n" not in b)
    | st.sampled_from([b"Bearer ", b"bearer sk-vp-", b"Bearer sk-vp-" + b"a" * 12 + b"-"])
    .flatmap(lambda head: st.binary(max_size=60).map(lambda tail: head + tail))
    .filter(lambda b: b"\r" not in b and b"\n" not in b and b"\x00" not in b)
)
async def test_any_authorization_header_is_a_clean_401(
    tmp_path_factory: pytest.TempPathFactory, value: bytes
) -> None:
    store = FileKeyStore(tmp_path_factory.mktemp("keys") / "keys.json")
    app = AuthMiddleware(PlainTextResponse("should not be reached"), store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        resp = await http.post("/v1/chat/completions", headers=[(b"authorization", value.strip())])
    assert resp.status_code == 401
    assert set(resp.json()["error"]) == {"message", "type", "param", "code"}
