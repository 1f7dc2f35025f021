"""deploy/k8s: plain manifests whose names, selectors, ports, paths and settings fit together
and fit the code (routes, settings model, policy loader, image user)."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import kubernetes_validate
import pytest
from deployfiles import (
    DASHBOARDS,
    DEPLOY,
    apply_json_patch,
    dockerfile_env,
    dockerfile_instructions,
    k8s_documents,
    load_yaml,
)

from policies import parse_policy
from policies.shadowing import find_shadows
from proxy.config import CONFIG_ENV, Settings, load_settings
from proxy.routes import routes
from verifiers.nli.bundled import BundledNLI
from verifiers.nli.registry import backend_names

DOCS = k8s_documents()
ROUTES = {r.path for r in routes()}


def _one(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        d for d in DOCS if d["kind"] == kind and name in (None, d.get("metadata", {}).get("name"))
    ]
    assert len(found) == 1, f"{kind} {name or ''}: {len(found)} found"
    return found[0]


def _pod() -> dict[str, Any]:
    return _one("Deployment")["spec"]["template"]["spec"]


def _container() -> dict[str, Any]:
    (container,) = _pod()["containers"]
    return container


def _volume_source(mount_path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(volumeMount, volume) mounted at ``mount_path``."""
    mount = next(m for m in _container()["volumeMounts"] if m["mountPath"] == mount_path)
    volume = next(v for v in _pod()["volumes"] if v["name"] == mount["name"])
    return mount, volume


def _env(container: dict[str, Any]) -> dict[str, str]:
    """The container's environment; Secret values stand in as non-empty dummies."""
    env = dict(dockerfile_env("runtime"))
    for item in container["env"]:
        env[item["name"]] = item.get("value", "redis://secret-from-k8s:6379/0")
    return env


def _settings(tmp_path: Any, container: dict[str, Any] | None = None) -> Settings:
    env = _env(container or _container())
    mount, volume = _volume_source(env[CONFIG_ENV])
    config_map = _one("ConfigMap", volume["configMap"]["name"])
    path = tmp_path / "veriproxy.yaml"
    path.write_text(config_map["data"][mount["subPath"]], encoding="utf-8")
    return load_settings(path, environ=env)


def test_every_manifest_is_listed_in_the_kustomization() -> None:
    kustomization = _one("Kustomization")
    files = {p.name for p in (DEPLOY / "k8s").glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files


def test_all_the_pieces_are_there() -> None:
    kinds = {d["kind"] for d in DOCS}
    assert {
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "ConfigMap",
        "PodDisruptionBudget",
        "ServiceMonitor",
    } <= kinds


def test_selectors_find_the_proxy_pods() -> None:
    pod_labels = _one("Deployment")["spec"]["template"]["metadata"]["labels"]
    selectors = [
        _one("Deployment")["spec"]["selector"]["matchLabels"],
        _one("Service")["spec"]["selector"],
        _one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
    ]
    for selector in selectors:
        assert selector.items() <= pod_labels.items()
    service_labels = _one("Service")["metadata"]["labels"]
    monitor_selector = _one("ServiceMonitor")["spec"]["selector"]["matchLabels"]
    assert monitor_selector.items() <= service_labels.items()
    target = _one("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]
    deployment = _one("Deployment")["metadata"]["name"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment)


def test_configuration_is_valid_and_listens_on_the_container_port(tmp_path: Any) -> None:
    settings = _settings(tmp_path)
    assert settings.host == "0.0.0.0"
    (port,) = _container()["ports"]
    assert port["containerPort"] == settings.port
    assert _one("Service")["spec"]["ports"][0]["targetPort"] == port["name"]


def test_upstream_keys_come_from_secrets(tmp_path: Any) -> None:
    settings = _settings(tmp_path)
    env = _container()["env"]
    from_secrets = {e["name"] for e in env if "secretKeyRef" in e.get("valueFrom", {})}
    config_map = _one("ConfigMap", "veriproxy-config")["data"]["veriproxy.yaml"]
    # Every api_key_env the config names is fed from a Secret, never a literal value.
    for line in config_map.splitlines():
        if "api_key_env:" in line:
            assert line.split(":", 1)[1].strip() in from_secrets
    assert settings.default_upstream is not None and settings.default_upstream.api_key is not None
    assert "api_key:" not in config_map and "redis://" not in config_map


def test_probes_use_the_app_routes() -> None:
    container = _container()
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    port_names = {p["name"] for p in container["ports"]}
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["path"] in ROUTES
        assert container[probe]["httpGet"]["port"] in port_names


def test_termination_grace_outlasts_pre_stop_and_drain(tmp_path: Any) -> None:
    pre_stop = _container()["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    grace = _pod()["terminationGracePeriodSeconds"]
    assert grace > int(pre_stop[1]) + _settings(tmp_path).drain_seconds


def test_resources_and_security() -> None:
    container = _container()
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])  # the HPA needs cpu
    context = _pod()["securityContext"]
    (user,) = [i.args[0] for i in dockerfile_instructions() if i.keyword == "USER"]
    assert context["runAsNonRoot"] is True
    assert f"{context['runAsUser']}:{context['runAsGroup']}" == user
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert (
        _one("HorizontalPodAutoscaler")["spec"]["minReplicas"]
        > (_one("PodDisruptionBudget")["spec"]["minAvailable"])
    )


def test_every_shipped_policy_loads_and_none_is_shadowed(tmp_path: Any) -> None:
    config_map = _one("ConfigMap", "veriproxy-policies")
    assert config_map["data"]
    loaded = []
    for name, text in config_map["data"].items():
        assert name.endswith((".yaml", ".yml"))
        loaded.append(parse_policy(text, name))
        assert loaded[-1].name == name.rsplit(".", 1)[0]
    default = _settings(tmp_path).verification.default_policy
    assert find_shadows(loaded, default) == ()


def test_policies_are_mounted_where_the_proxy_reads_them(tmp_path: Any) -> None:
    policies_dir = _settings(tmp_path).verification.policies_dir
    assert policies_dir is not None
    _, volume = _volume_source(policies_dir)
    assert volume["configMap"]["name"] == "veriproxy-policies"


def test_service_monitor_scrapes_the_metrics_route() -> None:
    monitor = _one("ServiceMonitor")["spec"]
    (endpoint,) = monitor["endpoints"]
    assert endpoint["path"] in ROUTES
    assert endpoint["port"] in {p["name"] for p in _one("Service")["spec"]["ports"]}
    # The job label comes from a Service label; the target-down alert watches that job.
    job = _one("Service")["metadata"]["labels"][monitor["jobLabel"]]
    alerts = (DASHBOARDS / "rules" / "alerts.yml").read_text(encoding="utf-8")
    assert f'up{{job="{job}"}}' in alerts


# Oldest and newest Kubernetes releases the manifests are checked against (strict: unknown
# fields, i.e. typos, fail too). The ServiceMonitor is a CRD and the Kustomization is not a
# cluster object; the schemas ship neither.
@pytest.mark.parametrize("version", ["1.28.0", kubernetes_validate.latest_version()])
def test_manifests_match_the_kubernetes_schemas(version: str) -> None:
    checked = 0
    for doc in DOCS:
        if doc["kind"] in ("ServiceMonitor", "Kustomization"):
            continue
        kubernetes_validate.validate(doc, version, strict=True)
        checked += 1
    assert checked >= 6


def test_gpu_overlay_runs_the_bundled_nli_on_cuda(tmp_path: Any) -> None:
    overlay = DEPLOY / "k8s" / "gpu"
    kustomization = load_yaml(overlay / "kustomization.yaml")
    assert kustomization["resources"] == [".."]
    deployment = _one("Deployment")
    image_name = _container()["image"].split(":")[0]
    assert [i["name"] for i in kustomization["images"]] == [image_name]
    (patch,) = kustomization["patches"]
    assert (patch["target"]["kind"], patch["target"]["name"]) == (
        "Deployment",
        deployment["metadata"]["name"],
    )
    patched = apply_json_patch(copy.deepcopy(deployment), load_yaml(overlay / patch["path"]))
    kubernetes_validate.validate(patched, kubernetes_validate.latest_version(), strict=True)
    (container,) = patched["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    verifier = _settings(tmp_path, container).verification.verifier
    assert verifier is not None and verifier.nli.name in backend_names()
    assert verifier.nli.options["providers"][0] == "CUDAExecutionProvider"
    # The options reach BundledNLI's constructor as keyword arguments.
    assert set(verifier.nli.options) <= set(inspect.signature(BundledNLI).parameters)
