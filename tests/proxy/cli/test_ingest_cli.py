from __future__ import annotations

from pathlib import Path

import pytest

from proxy.cli import main
from proxy.retrieval.sqlite_store import SqliteIndex
from verifiers import Encoder

MEDLINE = Path(__file__).parents[2] / "fixtures" / "medline_excerpt.xml"


def test_index_command_builds_then_skips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "pubmed.sqlite"
    argv = ["index", str(MEDLINE), "--db", str(db), "--threads", "1"]
    assert main(argv) == 0
    assert "files indexed 1" in capsys.readouterr().out
    assert main(argv) == 0
    assert "skipped (already done) 1" in capsys.readouterr().out
    store = SqliteIndex(db, Encoder(threads=1), readonly=True)
    assert store.count() == 3
    store.close()


def test_index_command_reports_unreadable_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(tmp_path / "missing.xml"), "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert not (tmp_path / "x.sqlite").exists()


def test_a_failed_run_keeps_an_index_it_did_not_create(tmp_path: Path) -> None:
    db = tmp_path / "pubmed.sqlite"
    assert main(["index", str(MEDLINE), "--db", str(db), "--threads", "1"]) == 0
    broken = tmp_path / "more.jsonl"
    broken.write_text("not json\n")
    assert main(["index", str(broken), "--db", str(db), "--threads", "1"]) == 2
    store = SqliteIndex(db, Encoder(threads=1), readonly=True)
    assert store.count() == 3
    store.close()
