"""The wheel (``pip wheel .``) ships the product and nothing else: every file of ``proxy/``,
``verifiers/`` and ``policies/`` (the demo, the bundled models, the demo index, the presets, the
playground page), and none of the test and benchmark tools in ``proxy/testing/`` (the upstream
emulator, the server thread).

Built offline from a copy of the sources, so a stale ``build/`` folder in the checkout (which
setuptools would pack too) cannot hide or fake a file."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).parents[1]
PACKAGES = ("proxy", "verifiers", "policies")
TEST_TOOLS = "proxy/testing/"
# What ``veriproxy demo`` and a fresh install read at run time, named for the reader; the
# comparison below covers every other file.
PRODUCT_FILES = (
    "proxy/cli/demo.py",
    "proxy/cli/_replay.py",
    "proxy/data/demo_answers.json",
    "proxy/data/demo_pubmedqa.sqlite",
    "proxy/ui/index.html",
    "verifiers/models/nli/model.int8.onnx",
    "verifiers/models/embed/encoder.onnx",
    "policies/presets/default.yaml",
)


def _sources(root: Path) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for package in PACKAGES
        for path in (root / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_wheel_ships_the_product_without_the_test_tools(tmp_path: Path) -> None:
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in PACKAGES:
        shutil.copytree(REPO / package, source / package, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    offline = ("--no-deps", "--no-index", "--no-build-isolation", "--quiet")
    command = [sys.executable, "-m", "pip", "wheel", str(source), *offline]
    built = subprocess.run(
        [*command, "--wheel-dir", str(tmp_path / "dist")], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("veriproxy-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if ".dist-info/" not in name}

    assert sorted(n for n in shipped if n.startswith(TEST_TOOLS)) == []
    assert sorted(n for n in shipped if "emulator" in n or "server_thread" in n) == []
    assert set(PRODUCT_FILES) <= shipped
    product = {name for name in _sources(source) if not name.startswith(TEST_TOOLS)}
    assert sorted(product - shipped) == []
