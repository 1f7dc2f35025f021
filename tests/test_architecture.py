"""The layers hold: the import-linter contracts in pyproject.toml ([tool.importlinter]) pass on
the tree, and the private-modules contract does catch a breach."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

from tests.import_contracts import PrivateModulesContract

ROOT = Path(__file__).parents[1]


def test_the_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_a_private_module_of_another_package_is_a_breach() -> None:
    graph = grimp.ImportGraph()
    graph.add_import(importer="proxy.audit.review", imported="proxy.state._redis")  # breach
    graph.add_import(importer="proxy.state.cache", imported="proxy.state._redis")  # its own
    graph.add_import(importer="proxy.state", imported="proxy.state._redis")  # its own
    graph.add_import(importer="proxy.audit.log", imported="proxy.state")  # public
    contract = PrivateModulesContract("private", {}, {"source_modules": ["proxy"]})
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert check.metadata["breaches"] == [("proxy.audit.review", "proxy.state._redis")]
