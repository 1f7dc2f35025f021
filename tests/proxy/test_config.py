"""Settings from YAML + environment, and the messages that name a bad key."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proxy.config import (
    DEFAULT_UPSTREAM_URL,
    ConfigError,
    Secret,
    UnknownModelPolicy,
    load_settings,
)
from verifiers.config import Component
from verifiers.nli.batching import BatchOptions


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "veriproxy.yaml"
    path.write_text(text)
    return path


def test_embedded_defaults_without_a_file() -> None:
    settings = load_settings(None, environ={})
    assert (settings.host, settings.port) == ("127.0.0.1", 8080)
    assert settings.models == {}
    assert settings.unknown_model is UnknownModelPolicy.DEFAULT
    assert settings.default_upstream is not None
    assert settings.default_upstream.base_url == DEFAULT_UPSTREAM_URL
    assert settings.default_upstream.api_key is None  # the client's Authorization is forwarded


def test_yaml_file_with_models(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
port: 9001
unknown_model: reject
timeouts: {read: 12.5}
models:
  fast:
    base_url: http://127.0.0.1:9100/v1/
    model: small
    api_key_env: FAST_KEY
  claude:
    litellm: anthropic/claude-3-5-haiku-20241022
""",
    )
    settings = load_settings(path, environ={"FAST_KEY": "sk-fast-123"})
    assert settings.port == 9001
    assert settings.unknown_model is UnknownModelPolicy.REJECT
    assert settings.timeouts.read == 12.5 and settings.timeouts.connect == 5.0
    fast = settings.models["fast"]
    assert fast.base_url == "http://127.0.0.1:9100/v1"  # trailing slash dropped
    assert fast.model == "small"
    assert fast.api_key == Secret("sk-fast-123")
    assert settings.models["claude"].litellm_model == "anthropic/claude-3-5-haiku-20241022"
    assert settings.secrets() == ("sk-fast-123",)


def test_environment_overrides_file_and_nests(tmp_path: Path) -> None:
    path = write(tmp_path, "port: 9001\ntimeouts: {read: 12.5, connect: 2}\n")
    settings = load_settings(
        None,
        environ={
            "VERIPROXY_CONFIG": str(path),
            "VERIPROXY_PORT": "9002",
            "VERIPROXY_TIMEOUTS__READ": "30",
            "VERIPROXY_DEFAULT_UPSTREAM__BASE_URL": "http://127.0.0.1:1/v1",
            "VERIPROXY_HTTP2": "true",
        },
    )
    assert settings.port == 9002
    assert settings.timeouts.read == 30 and settings.timeouts.connect == 2
    assert settings.default_upstream is not None
    assert settings.default_upstream.base_url == "http://127.0.0.1:1/v1"
    assert settings.http2 is True


def test_explicit_overrides_win_and_none_is_ignored() -> None:
    settings = load_settings(
        None, environ={"VERIPROXY_PORT": "9002"}, overrides={"port": 9003, "host": None}
    )
    assert settings.port == 9003 and settings.host == "127.0.0.1"


@pytest.mark.parametrize(
    ("yaml_text", "environ", "key"),
    [
        ("port: not-a-number\n", {}, "config key port:"),
        ("timeouts: {read: -1}\n", {}, "config key timeouts.read:"),
        ("unknown_model: sometimes\n", {}, "config key unknown_model:"),
        ("colour: blue\n", {}, "config key colour:"),
        ("models: {m: {}}\n", {}, "config key models.m:"),
        ("models: {m: {base_url: x, litellm: y}}\n", {}, "config key models.m:"),
        ("models: {m: {base_url: ftp://x}}\n", {}, "config key models.m:"),
        ("models: {m: {base_url: http://x, api_key_env: NOPE}}\n", {}, "models.m.api_key_env"),
        ("port: 80\n", {"VERIPROXY_TIMEOUTS__POOL": "zero"}, "config key timeouts.pool:"),
        ("redis: {url: http://x}\n", {}, "config key redis.url:"),
        ("audit: {redis_stream: s}\n", {}, "config key (top level): audit.redis_stream"),
        ("retrieval: {opensearch: {url: x}}\n", {}, "config key retrieval.opensearch.url:"),
        (
            "verification: {verifier: {escalate: {judge: m}}}\n",
            {},
            "config key verification.verifier.escalate:",
        ),
        ("verification: {escalate: {judge: m}}\n", {}, "config key verification.escalate:"),
    ],
)
def test_bad_values_name_the_key(
    tmp_path: Path, yaml_text: str, environ: dict[str, str], key: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)):
        load_settings(write(tmp_path, yaml_text), environ=environ)


def test_bad_yaml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_settings(write(tmp_path, "port: [1,\n"), environ={})
    with pytest.raises(ConfigError, match="config file"):
        load_settings(tmp_path / "missing.yaml", environ={})
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_settings(write(tmp_path, "- 1\n"), environ={})


def test_secret_never_printed(tmp_path: Path) -> None:
    path = write(tmp_path, "default_upstream: {base_url: http://x, api_key: sk-hidden-999999}\n")
    settings = load_settings(path, environ={})
    assert "sk-hidden-999999" not in repr(settings)
    assert "sk-hidden-999999" not in str(settings)


def test_escalation_is_read_from_the_verifier_section(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
verification:
  verifier:
    nli: {name: bundled, threads: 2}
    escalate: {judge: claude, when: [{name: harmful, harm_at_least: 4}]}
""",
    )
    verification = load_settings(path, environ={}).verification
    assert verification.verifier is not None  # typed, for Verifier.from_config
    assert verification.verifier.nli == Component("bundled", {"threads": 2})
    assert verification.escalate is verification.verifier.escalate
    assert verification.escalate is not None
    assert verification.escalate.judge == "claude"
    assert [rule.name for rule in verification.escalate.when] == ["harmful"]


def test_verifier_checks_are_passed_on_and_an_unknown_one_names_the_known(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "verification:\n  verifier:\n    checks: [numbers, quotes]\n")
    verifier = load_settings(path, environ={}).verification.verifier
    assert verifier is not None and verifier.checks == ("numbers", "quotes")
    path = write(tmp_path, "verification:\n  verifier:\n    checks: [numbers, quote]\n")
    known = "choose from alignment, direction, entities, negation, numbers, qualifiers, quotes"
    with pytest.raises(ConfigError, match=rf"verifier\.checks: unknown check 'quote'; {known}"):
        load_settings(path, environ={})


def test_verifier_batching_options_are_checked_at_load(tmp_path: Path) -> None:
    path = write(tmp_path, "verification:\n  verifier:\n    batching: {max_wait_ms: 2}\n")
    verifier = load_settings(path, environ={}).verification.verifier
    assert verifier is not None and verifier.batching == BatchOptions(max_wait_s=0.002)
    path = write(tmp_path, "verification:\n  verifier:\n    batching: {max_pairs: 0}\n")
    with pytest.raises(ConfigError, match=r"verifier\.batching: max_pairs and fair_share"):
        load_settings(path, environ={})


@pytest.mark.parametrize(
    "statement",
    [
        "import proxy.config",
        # Only a file that configures the judge cascade loads the verifier.
        "import proxy.config; proxy.config.load_settings(None, environ={})",
    ],
)
def test_reading_the_configuration_loads_no_heavy_dependency(statement: str) -> None:
    # The figure itself (under 0.1 s) is measured by bench/import_cost.py, not asserted here.
    code = (
        f"{statement}; import sys; print(sorted(m for m in "
        "('onnxruntime','redis','prometheus_client') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert run.stdout.strip() == "[]"


def test_the_old_retrieval_settings_path_still_works_with_a_warning() -> None:
    from proxy.settings.retrieval import RetrievalSettings

    with pytest.warns(DeprecationWarning, match="proxy.settings.retrieval"):
        old = importlib.reload(importlib.import_module("proxy.evidence.settings"))
    assert old.RetrievalSettings is RetrievalSettings


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        # A misspelt key of the section itself, with its YAML path.
        ("windowz: 3", "config key verification.verifier.windowz: Extra inputs are not permitted"),
        # A component's option, against its constructor's signature (loads no model).
        (
            "nli: {name: hf, modle: x}",
            "config key verification.verifier.nli: NLI backend 'hf': unknown option 'modle' "
            "(did you mean 'model'?)",
        ),
        ("nli: {name: bundled, threads: many}", "NLI backend 'bundled': option 'threads':"),
        ("nli: {name: hf}", "NLI backend 'hf': missing a required argument: 'model'"),
        ("nli: {name: nope}", "verifier.nli: unknown NLI backend 'nope'; choose from bundled"),
        ("windows: {per_abstrct: 2}", "verifier.windows: unknown option 'per_abstrct'"),
        ("harm: {name: rules, lexicon: 3}", "verifier.harm: harm scorer 'rules': option"),
        ("decomposer: {name: llm}", "decomposer 'llm': missing a required argument: 'model'"),
        ("review_below: 1.5", "config key verification.verifier.review_below:"),
    ],
)
def test_the_verifier_section_is_typed_and_refuses_what_it_does_not_declare(
    tmp_path: Path, yaml_text: str, message: str
) -> None:
    path = write(tmp_path, f"verification:\n  verifier:\n    {yaml_text}\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(path, environ={})


def test_review_below_reaches_the_verifier(tmp_path: Path) -> None:
    path = write(tmp_path, "verification:\n  verifier:\n    review_below: 0.35\n")
    verifier = load_settings(path, environ={}).verification.verifier
    assert verifier is not None and verifier.review_below == 0.35
    assert load_settings(None, environ={}).verification.verifier is None  # the shipped verifier
