"""deploy/Dockerfile read statically (no Docker engine here): what it runs, as whom, and that
it matches the code's packages, routes, CLI and settings."""

from __future__ import annotations

import json
import re
import shlex
import tomllib

from deployfiles import DEPLOY, ROOT, dockerfile_env, dockerfile_instructions
from packaging.specifiers import SpecifierSet

from proxy.cli import build_parser
from proxy.config import load_settings
from proxy.routes import routes

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
RUNTIME = "runtime"


def _runtime(keyword: str) -> list[str]:
    found = dockerfile_instructions()
    return [i.value for i in found if i.stage == RUNTIME and i.keyword == keyword]


def _python_version() -> str:
    args = [i.value for i in dockerfile_instructions() if i.keyword == "ARG"]
    image = next(a.split("=", 1)[1] for a in args if a.startswith("PYTHON_IMAGE="))
    match = re.fullmatch(r"python:(\d+\.\d+)-slim-\w+", image)
    assert match, image
    return match.group(1)


def test_multi_stage_and_runtime_is_last() -> None:
    stages = [i.value for i in dockerfile_instructions() if i.keyword == "FROM"]
    assert len(stages) >= 2
    assert stages[-1].endswith(f" AS {RUNTIME}")
    copies = _runtime("COPY")
    assert copies and all(c.startswith("--from=build ") for c in copies), "runtime copies no source"


def test_runs_as_a_numeric_non_root_user() -> None:
    (user,) = _runtime("USER")
    uid, _, gid = user.partition(":")
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
        if i.keyword == "COPY" and not i.value.startswith("--from")
        for src in shlex.split(i.value)[:-1]
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
    build = " ".join(i.value for i in dockerfile_instructions() if i.keyword in ("RUN", "ARG"))
    assert "pip uninstall -y onnxruntime" in build
    assert 'ONNXRUNTIME_GPU="onnxruntime-gpu' in build


def test_entrypoint_is_the_serve_command() -> None:
    (entrypoint,) = _runtime("ENTRYPOINT")
    (cmd,) = _runtime("CMD")
    argv = json.loads(entrypoint) + json.loads(cmd)
    assert argv[0] in PYPROJECT["project"]["scripts"]
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve"


def test_image_environment_is_valid_configuration() -> None:
    env = dockerfile_env(RUNTIME)
    settings = load_settings(environ=env)
    assert settings.host not in ("127.0.0.1", "localhost", "::1"), "unreachable from outside"
    assert _runtime("EXPOSE") == [str(settings.port)]


def test_healthcheck_probes_readiness_on_the_served_port() -> None:
    (check,) = _runtime("HEALTHCHECK")
    match = re.search(r"http://127\.0\.0\.1:%s(/\w+)' % os\.environ\.get\('(\w+)'", check)
    assert match, check
    path, port_variable = match.groups()
    assert path == "/readyz" and path in {r.path for r in routes()}
    assert port_variable in dockerfile_env(RUNTIME)
    assert load_settings(environ={port_variable: "9123"}).port == 9123, "not the port setting"
