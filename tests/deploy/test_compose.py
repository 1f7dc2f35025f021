"""deploy/compose.yaml and the files it mounts, checked against the code: the settings it
produces, the ports and paths every service expects, and promtool on the Prometheus config."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from deployfiles import DASHBOARDS, DEPLOY, bind_mounts, dockerfile_env, load_yaml, mount

from policies import PRESETS_DIR
from proxy.cli import build_parser
from proxy.config import CONFIG_ENV, Settings, load_settings
from proxy.routes import routes

NGINX = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")


def _proxy_settings(compose: dict[str, Any], *overrides: dict[str, Any]) -> Settings:
    """The settings a proxy replica starts with: image ENV, then compose's (with the override
    files' environment merged over it, as ``docker compose -f A -f B`` does), then its config."""
    service = compose["services"]["proxy"]
    env = {**dockerfile_env("runtime"), **service["environment"]}
    for override in overrides:
        env.update(override["services"]["proxy"].get("environment", {}))
    mounts = bind_mounts(service)
    config_source = next(source for source, target in mounts if target == env[CONFIG_ENV])
    return load_settings(config_source, environ=env)


def _nginx(directive: str) -> list[str]:
    return re.findall(rf"^\s*{directive}\s+([^;{{]+);", NGINX, flags=re.MULTILINE)


def _seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+)(ms|s|m)?", value.strip())
    assert match, value
    return int(match.group(1)) * {"ms": 0.001, "s": 1, "m": 60, None: 1}[match.group(2)]


def test_compose_file_matches_the_compose_specification(compose: dict[str, Any]) -> None:
    # The Compose spec's schema as vendored by check-jsonschema: typos in keys fail here.
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads(vendored.joinpath("compose-spec.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    for document in (compose, load_yaml(DEPLOY / "compose.opensearch.yaml")):
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
        assert not errors


def test_the_stack_has_its_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"proxy", "lb", "redis", "prometheus", "grafana"} <= set(services)
    assert services["proxy"]["deploy"]["replicas"] == 2
    for optional in ("opensearch", "index-pubmed"):
        assert services[optional]["profiles"] == ["opensearch"]


def test_proxy_configuration_is_valid_and_reachable(compose: dict[str, Any]) -> None:
    settings = _proxy_settings(compose)
    assert settings.host == "0.0.0.0"
    assert compose["services"]["proxy"]["expose"] == [str(settings.port)]


def test_stop_grace_period_outlasts_the_drain(compose: dict[str, Any]) -> None:
    grace = _seconds(compose["services"]["proxy"]["stop_grace_period"])
    assert grace > _proxy_settings(compose).drain_seconds


def test_redis_persists_and_is_the_one_configured(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert any(v.endswith(":/data") for v in redis["volumes"])
    settings = _proxy_settings(compose)
    assert settings.redis is not None
    assert re.match(r"redis://redis:6379(/\d+)?$", settings.redis.url)


def test_policies_are_mounted_from_the_presets_where_the_proxy_reads(
    compose: dict[str, Any],
) -> None:
    source, target = mount(compose["services"]["proxy"], "policies/presets")
    assert source == PRESETS_DIR
    assert _proxy_settings(compose).verification.policies_dir == target


def test_load_balancer_fronts_every_replica(compose: dict[str, Any]) -> None:
    settings = _proxy_settings(compose)
    (server,) = _nginx("server")
    assert server.split()[0] == f"proxy:{settings.port}"
    (listen,) = _nginx("listen")
    published = compose["services"]["lb"]["ports"][0].rsplit(":", 1)[1]
    assert listen == published


def test_load_balancer_passes_streams_and_bodies(compose: dict[str, Any]) -> None:
    settings = _proxy_settings(compose)
    assert _nginx("proxy_buffering") == ["off"]
    assert _seconds(_nginx("proxy_read_timeout")[0]) > settings.timeouts.read
    (body,) = _nginx("client_max_body_size")
    assert body.endswith("m") and int(body[:-1]) * 1024 * 1024 >= settings.max_body_bytes


def _prometheus_layout(compose: dict[str, Any], root: Path) -> Path:
    """Rebuild the container's /etc/prometheus from compose's bind mounts under ``root``."""
    for source, target in bind_mounts(compose["services"]["prometheus"]):
        dest = root / target.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, dest)
        else:
            shutil.copy(source, dest)
    flag = next(a for a in compose["services"]["prometheus"]["command"] if "config.file" in a)
    return root / flag.split("=", 1)[1].lstrip("/")


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool missing")
def test_prometheus_config_passes_promtool_with_the_shipped_rules(
    compose: dict[str, Any], tmp_path: Path
) -> None:
    config = _prometheus_layout(compose, tmp_path)
    result = subprocess.run(
        ["promtool", "check", "config", str(config)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Both rule files were found through the mount, not an empty glob.
    assert "SUCCESS: 2 rule files found" in result.stdout


def test_prometheus_scrapes_every_replica_on_the_metrics_route(compose: dict[str, Any]) -> None:
    prometheus = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    (job,) = [j for j in prometheus["scrape_configs"] if j["job_name"] == "veriproxy"]
    assert job["metrics_path"] in {r.path for r in routes()}
    (sd,) = job["dns_sd_configs"]
    assert sd["names"] == ["proxy"] and sd["port"] == _proxy_settings(compose).port
    # The alert for a dead replica watches this job.
    alerts = (DASHBOARDS / "rules" / "alerts.yml").read_text(encoding="utf-8")
    assert f'up{{job="{job["job_name"]}"}}' in alerts


def test_grafana_needs_an_admin_password(compose: dict[str, Any]) -> None:
    password = compose["services"]["grafana"]["environment"]["GF_SECURITY_ADMIN_PASSWORD"]
    assert password.startswith("${") and ":?" in password


def test_opensearch_override_points_proxies_where_the_index_job_writes(
    compose: dict[str, Any],
) -> None:
    override = load_yaml(DEPLOY / "compose.opensearch.yaml")
    retrieval = _proxy_settings(compose, override).retrieval
    job = build_parser().parse_args(compose["services"]["index-pubmed"]["command"])
    assert job.command == "index"
    assert (job.backend, job.opensearch_url) == (retrieval.backend, retrieval.opensearch.url)
    assert job.opensearch_index in (None, retrieval.opensearch.index)
    host, port = re.fullmatch(r"http://([\w-]+):(\d+)", retrieval.opensearch.url).groups()  # type: ignore[union-attr]
    assert host in compose["services"] and port == "9200"
    assert "opensearch" in override["services"]["proxy"]["depends_on"]
    # Without the override the proxies keep the default backend.
    assert _proxy_settings(compose).retrieval.backend != retrieval.backend
