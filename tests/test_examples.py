"""The examples in examples/ are what their tools read (issue 28): the compose file has what
the compose specification requires and what the emulator needs off loopback; the GitHub and
GitLab jobs have the keys their CI reads and keep the emulator's HAR and journal on failure.
``docker-compose config`` validates the compose file where it is installed; the container test
runs the compose example's app against the image."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((EXAMPLES / name).read_text())
    return data


def test_the_compose_file_has_an_emulator_and_an_app_that_waits_for_it():
    compose = load("docker-compose.yml")
    assert set(compose) <= {"services", "volumes", "networks", "configs", "secrets", "name"}
    services = compose["services"]
    assert set(services) == {"emulator", "app"}
    for service in services.values():
        assert "image" in service or "build" in service
    emulator, app = services["emulator"], services["app"]
    env = emulator["environment"]
    assert env["EMULATOR_ADMIN_TOKEN"] and env["EMULATOR_CALLBACK_HOSTS"] == "app"
    assert app["depends_on"]["emulator"]["condition"] == "service_healthy"
    assert app["environment"]["EMULATOR_URL"] == "http://emulator:8400"
    assert app["environment"]["APP_URL"].startswith("http://app:")
    named = {m.split(":")[0] for m in emulator["volumes"] if not m.startswith(".")}
    assert named <= set(compose["volumes"]) and any(
        m.endswith(":/data") for m in emulator["volumes"]
    )
    source = app["volumes"][0].split(":")[0]
    assert (EXAMPLES / source / "app.py").is_file()


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_docker_compose_validates_the_compose_file():
    done = subprocess.run(
        ["docker-compose", "-f", str(EXAMPLES / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_the_github_workflow_runs_the_emulator_as_a_service_and_keeps_its_har():
    workflow = load("github-actions.yml")
    # YAML 1.1 reads the key `on` as True; GitHub reads it as "on".
    assert workflow.get("on", workflow.get(True)) and workflow["name"]
    (job,) = workflow["jobs"].values()
    assert job["runs-on"]
    service = job["services"]["emulator"]
    assert service["image"] and "8400:8400" in service["ports"]
    assert service["env"]["EMULATOR_ADMIN_TOKEN"] == job["env"]["EMULATOR_ADMIN_TOKEN"]
    assert all("uses" in step or "run" in step for step in job["steps"])
    kept = [s for s in job["steps"] if s.get("if") == "failure()"]
    assert any("/har" in s.get("run", "") and "/requests" in s.get("run", "") for s in kept)
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in kept)


def test_the_gitlab_job_runs_the_emulator_as_a_service_and_keeps_its_har():
    pipeline = load("gitlab-ci.yml")
    (job,) = pipeline.values()
    assert job["script"] and job["image"]
    (service,) = job["services"]
    assert service["name"] and service["alias"] == "emulator"
    assert job["variables"]["EMULATOR_URL"] == "http://emulator:8400"
    assert job["variables"]["EMULATOR_ADMIN_TOKEN"]
    lines = [*job["script"], *job["after_script"]]
    assert all(isinstance(line, str) for line in lines)  # an unquoted ": " makes a mapping
    collected = " ".join(job["after_script"])
    assert "/har" in collected and "/requests" in collected
    assert job["artifacts"]["when"] == "on_failure" and job["artifacts"]["paths"]
