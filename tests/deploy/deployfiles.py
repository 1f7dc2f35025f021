"""Loaders for the deployment files under test (dashboards/, deploy/), shared by tests/deploy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dockerfile
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DASHBOARDS = ROOT / "dashboards"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def panels_of(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel, including those nested in collapsed rows."""
    out = []
    for panel in dashboard["panels"]:
        out.append(panel)
        out.extend(panel.get("panels", []))
    return out


def dashboard_exprs(dashboard: dict[str, Any]) -> list[str]:
    return [t["expr"] for p in panels_of(dashboard) for t in p.get("targets", [])]


def rule_exprs() -> list[str]:
    rules = []
    for name in ("recording.yml", "alerts.yml"):
        doc = load_yaml(DASHBOARDS / "rules" / name)
        rules.extend(r["expr"] for g in doc["groups"] for r in g["rules"])
    return rules


def bind_mounts(service: dict[str, Any]) -> list[tuple[Path, str]]:
    """(resolved host path, container path) of a compose service's relative bind mounts."""
    out = []
    for volume in service.get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith("."):
            out.append(((DEPLOY / source).resolve(), target))
    return out


def mount(service: dict[str, Any], source_suffix: str) -> tuple[Path, str]:
    """The bind mount whose host path ends with ``source_suffix``."""
    for source, target in bind_mounts(service):
        if source.as_posix().endswith(source_suffix):
            return source, target
    raise AssertionError(f"no bind mount from {source_suffix!r} in {service.get('image')}")


def k8s_documents() -> list[dict[str, Any]]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
    return docs


@dataclass(frozen=True, slots=True)
class Instruction:
    stage: str  # the FROM ... AS name it belongs to ("" before the first FROM)
    keyword: str  # upper case
    args: tuple[str, ...]
    flags: tuple[str, ...]  # --from=build, --interval=10s, ...


def dockerfile_instructions(path: Path = DEPLOY / "Dockerfile") -> list[Instruction]:
    """The Dockerfile as Docker's own (BuildKit) parser reads it, tagged with stage names."""
    out: list[Instruction] = []
    stage = ""
    for command in dockerfile.parse_file(str(path)):
        keyword = command.cmd.upper()
        if keyword == "FROM":
            stage = command.value[-1] if len(command.value) == 3 else command.value[0]
        out.append(Instruction(stage, keyword, tuple(command.value), tuple(command.flags)))
    return out


def dockerfile_env(stage: str) -> dict[str, str]:
    """ENV of one stage, as the container will see it."""
    env: dict[str, str] = {}
    for ins in dockerfile_instructions():
        if ins.stage == stage and ins.keyword == "ENV":
            env.update(zip(ins.args[::2], ins.args[1::2], strict=True))
    return env


def apply_json_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """Apply RFC 6902 ``add``/``replace`` operations (what the kustomize overlays use)."""
    for op in ops:
        assert op["op"] in ("add", "replace"), op
        *parents, last = [
            p.replace("~1", "/").replace("~0", "~") for p in op["path"].lstrip("/").split("/")
        ]
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            if last == "-":
                node.append(op["value"])
            else:
                node[int(last)] = op["value"]
        else:
            assert op["op"] == "add" or last in node, f"replace of a missing {op['path']}"
            node[last] = op["value"]
    return doc
