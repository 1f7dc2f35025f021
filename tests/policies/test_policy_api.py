"""The public surface of ``policies`` is pinned: the proxy and users import these names."""

from __future__ import annotations

import ast
from pathlib import Path

import policies


def test_public_api_is_pinned() -> None:
    assert sorted(policies.__all__) == [
        "Action",
        "Bounds",
        "DecidedReport",
        "DecidedSentence",
        "Issue",
        "LegacyCompletions",
        "Match",
        "Messages",
        "OnVerifierError",
        "PRESETS_DIR",
        "Policy",
        "PolicyError",
        "PolicyFileError",
        "PolicyNotFound",
        "PolicyStore",
        "ReplaySummary",
        "ReportStatus",
        "ResponseDecision",
        "ResponseRule",
        "ResponseWhen",
        "SentenceDecision",
        "SentenceRule",
        "SentenceWhen",
        "StreamMode",
        "apply_policy",
        "decide_and_apply",
        "decide_report",
        "decide_response",
        "decide_sentence",
        "delivered_before_block",
        "load_policy",
        "parse_policy",
        "policy_json_schema",
        "policy_json_schema_text",
        "record_decision",
        "replay",
        "skipped",
        "withhold",
    ]
    assert all(hasattr(policies, name) for name in policies.__all__)


def test_policies_never_import_the_proxy() -> None:
    for path in Path(policies.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "proxy" or n.startswith("proxy.") for n in names), path
