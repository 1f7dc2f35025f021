"""The command line's contract, through the real ``veriproxy`` in a subprocess: exit status 0
pass, 1 the check failed, 2 usage or input error; every error one line on stderr, never a
traceback; a failed command leaves no files; every option documented, defaults shown."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from policies import ReportStatus
from proxy.cli import build_parser
from proxy.cli.check import fails

REPO = Path(__file__).parents[3]
EVIDENCE = REPO / "tests" / "fixtures" / "verification" / "evidence.jsonl"
BUNDLED = REPO / "verifiers" / "models" / "nli" / "nli_config.json"
# Two sentences restated from the CDCA abstract (PMID 1568684): both supported.
FAITHFUL = (
    "Treatment of 12 healthy female subjects with CDCA for 2 days resulted in increased BAT "
    "activity [PMID:1568684]. Whole-body energy expenditure was also increased upon CDCA "
    "treatment [PMID:1568684]."
)
# A contradicted number (18% for the abstract's 81%) and a PMID that is not in the evidence.
UNFAITHFUL = (
    "The majority of COVID-19-positive patients (18%) were asymptomatic [PMID:biho913w]. "
    "CDCA increased energy expenditure [PMID:12345678]."
)

needs_model = pytest.mark.skipif(not BUNDLED.exists(), reason="bundled NLI model not in the tree")


def veriproxy(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proxy", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"veriproxy {command}: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["check", "an answer", "--evidense", str(EVIDENCE)],
            "unrecognized arguments: --evidense (did you mean --evidence?)",
        ),
        (["check", "an answer", "--evid", str(EVIDENCE)], "unrecognized arguments: --evid"),
        (["check", "an answer"], "one of the arguments --evidence --pmids is required"),
        (
            ["check", "an answer", "--evidence", str(EVIDENCE), "--fail-on", "sometimes"],
            "argument --fail-on: invalid choice: 'sometimes'",
        ),
        (
            ["check", "an answer", "--evidence", "absent.jsonl"],
            "absent.jsonl: no such file or directory",
        ),
        (
            ["check", "an answer", "--evidence", str(EVIDENCE), "--policy", "no-such-policy"],
            "--policy no-such-policy: no such file or preset",
        ),
        (
            ["check", "an answer", "--pmids", "1568684", "--index", "absent.sqlite"],
            "no index at absent.sqlite",
        ),
        (["eval", "nli", "--datset", "scifact"], "unrecognized arguments: --datset"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_usage_and_input_errors_are_one_line(argv: list[str], expected: str) -> None:
    command = " ".join(argv[:2]) if argv[0] == "eval" else argv[0]
    assert expected in assert_one_line_error(veriproxy(*argv), command)


def test_an_unknown_command_is_a_usage_error() -> None:
    done = veriproxy("frobnicate")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("veriproxy: error: argument COMMAND: invalid choice")


def test_malformed_evidence_names_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "evidence.jsonl"
    broken.write_text('{"pmid": "1", "abstract": "text"}\n{"pmid": \n')
    line = assert_one_line_error(
        veriproxy("check", "an answer", "--evidence", str(broken)), "check"
    )
    assert f"{broken}: line 2: not JSON or JSONL" in line
    nameless = tmp_path / "nameless.json"
    nameless.write_text('[{"title": "no id"}]')
    line = assert_one_line_error(veriproxy("check", "x", "--evidence", str(nameless)), "check")
    assert "an evidence record has no id" in line


def test_eval_from_another_directory_names_the_missing_data_dir(tmp_path: Path) -> None:
    line = assert_one_line_error(veriproxy("eval", "retrieval", cwd=tmp_path), "eval retrieval")
    missing = (tmp_path / "../shared/data").resolve()
    assert f"argument --data-dir: no such directory: {missing}" in line
    assert not any(tmp_path.iterdir())


def test_a_failed_index_leaves_no_files(tmp_path: Path) -> None:
    db = tmp_path / "new" / "folders" / "pubmed.sqlite"
    line = assert_one_line_error(veriproxy("index", "absent.xml", "--db", str(db)), "index")
    assert "absent.xml: no such file or directory" in line
    assert not (tmp_path / "new").exists()

    broken = tmp_path / "records.jsonl"
    broken.write_text('{"pmid": "1", "title": "t", "abstract": "a"\n')
    done = veriproxy("index", str(broken), "--db", str(db), "--threads", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    # Progress and log lines may come first; the error is the last line.
    assert done.stderr.strip().splitlines()[-1].startswith(f"veriproxy index: error: {broken}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl"]


@needs_model
def test_check_exits_0_on_a_faithful_answer() -> None:
    done = veriproxy("check", FAITHFUL, "--evidence", str(EVIDENCE), "--no-color")
    assert done.returncode == 0, done.stderr
    assert "status=verified policy=default" in done.stdout
    assert "Traceback" not in done.stderr


@needs_model
def test_check_exits_1_on_an_unfaithful_answer() -> None:
    done = veriproxy("check", UNFAITHFUL, "--evidence", str(EVIDENCE), "--json")
    assert done.returncode == 1, done.stderr
    assert '"status": "flagged"' in done.stdout
    assert done.stderr.strip() == "veriproxy check: failed: status flagged (--fail-on flagged)"


@pytest.mark.parametrize(
    ("status", "failing"),
    [
        (ReportStatus.VERIFIED, set()),
        (ReportStatus.UNVERIFIED, {"flagged"}),
        (ReportStatus.FLAGGED, {"flagged"}),
        (ReportStatus.REDACTED, {"flagged", "redacted"}),
        (ReportStatus.BLOCKED, {"flagged", "redacted", "blocked"}),
    ],
)
def test_fail_on_is_a_threshold(status: ReportStatus, failing: set[str]) -> None:
    levels = ("flagged", "redacted", "blocked", "never")
    assert {level for level in levels if fails(status, level)} == failing


def _parsers(
    parser: argparse.ArgumentParser,
) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_every_option_has_help_and_shows_its_default() -> None:
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 20  # every command and subcommand was walked
    missing = []
    for parser in parsers:
        assert issubclass(parser.formatter_class, argparse.ArgumentDefaultsHelpFormatter)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing += [
                    f"{parser.prog} {a.dest}" for a in action._choices_actions if not a.help
                ]
            elif not (action.help or "").strip():
                missing.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []
    check = next(p for p in parsers if p.prog == "veriproxy check")
    assert "(default: flagged)" in check.format_help()


def test_data_dir_help_resolves_the_default() -> None:
    resolved = Path("../shared/data").resolve()
    helps = [
        (action.help or "") % {"default": action.default}
        for parser in _parsers(build_parser())
        for action in parser._actions
        if "--data-dir" in action.option_strings
    ]
    assert len(helps) == 11  # train-nli, train-roles and nine eval targets
    for text in helps:
        assert text.endswith(
            f"(default: ../shared/data, relative to the current directory: {resolved})"
        )


def test_key_store_errors_are_one_line(tmp_path: Path) -> None:
    store = tmp_path / "keys.json"
    created = veriproxy("keys", "--store", str(store), "create", "--tenant", "acme")
    assert created.returncode == 0, created.stderr
    unknown = veriproxy("keys", "--store", str(store), "revoke", "vpk_absent")
    assert "no key with id vpk_absent" in assert_one_line_error(unknown, "keys revoke")
    store.write_text("{not json", encoding="utf-8")
    assert_one_line_error(veriproxy("keys", "--store", str(store), "list"), "keys list")
