"""``veriproxy policy``: check policy files and try them on recorded reports before rollout.

- ``validate PATH...``: each file (or every *.yaml in a directory) against the schema; errors
  name file, line and key; then the files together with the shipped presets, as the proxy loads
  them, for policies that automatic selection can never reach (``policies.shadowing``, given
  ``--default-policy``); exit status 1 if any file is invalid or any policy is shadowed.
- ``replay POLICY --reports FILE``: what POLICY (a file or a preset name) would have done to the
  reports in FILE (JSONL: ``to_json`` reports or audit-log entries).
- ``schema``: print the JSON Schema of a policy file (``policies/schema.json``).
- ``presets``: list the shipped presets.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policies import Policy, ReplaySummary
    from policies.shadowing import Shadow

SHOW_SENTENCES = 20


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("policy", help="validate policies and replay them on recorded reports")
    actions = parser.add_subparsers(
        dest="policy_command", required=True, metavar="ACTION", help="what to do"
    )

    validate = actions.add_parser("validate", help="check policy files against the schema")
    validate.add_argument("paths", nargs="+", metavar="PATH", help="policy file or directory")
    validate.add_argument(
        "--default-policy", default="default", metavar="NAME",
        help="verification.default_policy of the proxy that will load them (default: default)",
    )  # fmt: skip
    validate.set_defaults(func=_validate)

    replay = actions.add_parser("replay", help="what a policy would have done to recorded reports")
    replay.add_argument("policy", metavar="POLICY", help="policy file, or the name of a preset")
    replay.add_argument("--reports", required=True, metavar="FILE", help="JSONL reports")
    replay.add_argument("--json", action="store_true", help="print the summary as JSON")
    replay.add_argument(
        "--show", type=int, default=SHOW_SENTENCES, metavar="N",
        help="list at most N blocked and N redacted sentences",
    )  # fmt: skip
    replay.set_defaults(func=_replay)

    schema = actions.add_parser("schema", help="print the policy file's JSON Schema")
    schema.set_defaults(func=_schema)

    presets = actions.add_parser("presets", help="list the shipped presets")
    presets.set_defaults(func=_presets)


def _validate(args: argparse.Namespace) -> int:
    from policies import PolicyFileError, load_policy

    files: list[Path] = []
    for path in map(Path, args.paths):
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in {".yaml", ".yml"})
        else:
            files.append(path)
    failed = 0
    loaded: list[Policy] = []
    for path in files:
        try:
            policy = load_policy(path)
        except PolicyFileError as exc:
            failed += 1
            print(exc, file=sys.stderr)
            continue
        loaded.append(policy)
        mode = "shadow" if policy.shadow else policy.stream_mode.value
        rules = len(policy.sentence_rules) + len(policy.response_rules)
        print(f"{path}: ok (policy {policy.name!r}, {mode}, {rules} rules)")
    if not files:
        print("no policy files found", file=sys.stderr)
        return 1
    shadows = _shadows(loaded, args.default_policy)
    for shadow in shadows:
        print(f"error: {shadow}", file=sys.stderr)
    return 1 if failed or shadows else 0


def _shadows(loaded: list[Policy], default: str) -> tuple[Shadow, ...]:
    """Shadowing among the files and the presets they do not override (a file's name wins, as
    in the proxy's policy store)."""
    from policies import PRESETS_DIR, load_policy
    from policies.shadowing import find_shadows

    by_name = {p.name: p for p in reversed(loaded)}  # the first file wins a name
    for path in sorted(PRESETS_DIR.glob("*.yaml")):
        preset = load_policy(path)
        by_name.setdefault(preset.name, preset)
    return find_shadows(by_name.values(), default)


def _replay(args: argparse.Namespace) -> int:
    from policies import PRESETS_DIR, PolicyFileError, load_policy, replay
    from policies.replay import ReportFormatError
    from verifiers import to_json

    source = Path(args.policy)
    if not source.exists() and (PRESETS_DIR / f"{args.policy}.yaml").exists():
        source = PRESETS_DIR / f"{args.policy}.yaml"
    try:
        policy = load_policy(source)
        with open(args.reports, encoding="utf-8") as lines:
            summary = replay(policy, lines)
    except PolicyFileError as exc:
        print(exc, file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cannot read {args.reports}: {exc.strerror}", file=sys.stderr)
        return 2
    except ReportFormatError as exc:
        print(f"{args.reports}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(to_json(summary), indent=2, ensure_ascii=False))
        return 0
    _print_summary(summary, args.show)
    return 0


def _print_summary(summary: ReplaySummary, show: int) -> None:
    print(f"policy {summary.policy!r} on {summary.reports} reports")
    if summary.partial:
        print(
            f"  note: {summary.partial} audit-log records carry no confidence or citations; "
            "confidence and citation_valid conditions cannot fire on them"
        )
    print("  responses by action: " + _counts(summary.by_action))
    print("  responses by status: " + _counts(summary.by_status))
    print(f"  status differs from the recorded one: {summary.changed_status}")
    print("  sentences by action: " + _counts(summary.sentence_actions))
    print("  rules fired (reports): " + (_counts(summary.rules) or "none"))
    for label, items in (("blocked", summary.blocked), ("redacted", summary.redacted)):
        print(f"  sentences it would have {label}: {len(items)}")
        for item in items[:show]:
            text = item.text or "(text not recorded)"
            rules = ", ".join(item.rules_fired)
            print(f"    report {item.report} sentence {item.index} [{rules}]: {text}")
        if len(items) > show:
            print(f"    … {len(items) - show} more (--show N or --json)")


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))


def _schema(args: argparse.Namespace) -> int:
    from policies import policy_json_schema_text

    sys.stdout.write(policy_json_schema_text())
    return 0


def _presets(args: argparse.Namespace) -> int:
    from policies import PRESETS_DIR, load_policy

    for path in sorted(PRESETS_DIR.glob("*.yaml")):
        policy = load_policy(path)
        print(f"{policy.name}: {policy.description}")
    return 0
