from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from policies import (
    Action,
    OnVerifierError,
    PolicyFileError,
    StreamMode,
    load_policy,
    parse_policy,
    policy_json_schema,
)
from policies._model import policy_json_schema_text
from policies.store import PRESETS_DIR
from verifiers import Verdict

GOOD = """\
name: ward-7
description: test policy
match:
  tenants: [hospital-a]
  models: ["gpt-4*"]
stream_mode: gate
on_verifier_error: closed
sentence_rules:
  - name: block-contradicted
    when:
      verdict: [contradicted]
      harm: {gte: 4}
    action: block
response_rules:
  - name: flag-risk
    when:
      support: {lt: 0.8}
      contradicted: {gte: 1}
    action: flag
"""


def _issues(text: str) -> list[tuple[int, str, str]]:
    with pytest.raises(PolicyFileError) as info:
        parse_policy(text, source="p.yaml")
    assert all(i.file == "p.yaml" for i in info.value.issues)
    return [(i.line, i.key, i.message) for i in info.value.issues]


def test_good_policy_parses_into_typed_values() -> None:
    policy = parse_policy(GOOD)
    assert policy.name == "ward-7"
    assert policy.stream_mode is StreamMode.GATE
    assert policy.on_verifier_error is OnVerifierError.CLOSED
    rule = policy.sentence_rules[0]
    assert rule.when.verdict == frozenset({Verdict.CONTRADICTED})
    assert rule.when.harm is not None and rule.when.harm.gte == 4
    assert rule.action is Action.BLOCK
    assert policy.match.models == ("gpt-4*",)
    assert policy.response_rules[0].when.contradicted is not None


def test_unknown_key_names_file_line_key_and_suggests() -> None:
    text = GOOD.replace("      harm: {gte: 4}", "      harms: {gte: 4}")
    [(line, key, message)] = _issues(text)
    assert line == 12
    assert key == "sentence_rules[0].when.harms"
    assert "unknown key 'harms'" in message and "did you mean 'harm'" in message
    assert "citation_valid" in message  # the allowed keys are listed


def test_bad_values_report_each_problem_with_its_line() -> None:
    text = GOOD.replace("[contradicted]", "[contradicted, wrong]").replace(
        "action: flag", "action: shout"
    )
    issues = _issues(text)
    keys = {key: line for line, key, _ in issues}
    assert keys["sentence_rules[0].when.verdict[1]"] == 11
    assert keys["response_rules[0].action"] == 19
    assert any("'block'" in m for _, _, m in issues)  # pydantic lists the allowed actions


def test_missing_required_key_points_at_the_parent() -> None:
    text = GOOD.replace("  - name: block-contradicted\n", "  - \n")
    issues = _issues(text)
    assert (10, "sentence_rules[0].name", "required key is missing") in issues


def test_empty_condition_and_bounds_are_errors() -> None:
    text = GOOD.replace("      harm: {gte: 4}", "      harm: {}")
    [(line, key, message)] = _issues(text)
    assert (line, key) == (12, "sentence_rules[0].when.harm")
    assert "at least one of gt, gte" in message
    text = GOOD.replace("      verdict: [contradicted]\n      harm: {gte: 4}\n", "      {}\n")
    [(line, key, message)] = _issues(text)
    assert key == "sentence_rules[0].when" and "at least one condition" in message


def test_duplicate_rule_names_and_duplicate_keys() -> None:
    text = GOOD.replace("name: flag-risk", "name: block-contradicted")
    [(_, _, message)] = _issues(text)
    assert "repeated: block-contradicted" in message
    text = GOOD.replace("stream_mode: gate\n", "stream_mode: gate\nstream_mode: annotate\n")
    assert _issues(text) == [(7, "stream_mode", "duplicate key")]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("name: x\nsentence_rules: [\n", 3, "invalid YAML"),
        ("name: x\n  bad: indent\n", 2, "invalid YAML"),
        ("", 1, "empty policy file"),
        ("- just\n- a list\n", 1, "dictionary"),
        ("name: Has Spaces\n", 1, "pattern"),
    ],
)
def test_yaml_and_top_level_errors(text: str, line: int, fragment: str) -> None:
    [(got_line, _, message)] = _issues(text)
    assert got_line == line
    assert fragment in message


def test_load_policy_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(GOOD.replace("shadow", "x").replace("stream_mode: gate", "stream_mod: gate"))
    with pytest.raises(PolicyFileError) as info:
        load_policy(path)
    assert str(info.value).startswith(f"{path}:6: stream_mod: unknown key")
    with pytest.raises(PolicyFileError, match="cannot read"):
        load_policy(tmp_path / "missing.yaml")


def test_published_schema_is_current_and_accepts_the_presets() -> None:
    published = Path(__file__).parents[2] / "policies" / "schema.json"
    assert published.read_text(encoding="utf-8") == policy_json_schema_text()
    schema = json.loads(published.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(PRESETS_DIR.glob("*.yaml")):
        validator.validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    bad = yaml.safe_load(GOOD.replace("harm: {gte: 4}", "harms: {gte: 4}"))
    assert not validator.is_valid(bad)
    assert policy_json_schema()["title"] == "veriproxy policy"
