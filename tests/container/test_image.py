"""The image (Dockerfile), built and run as a user runs it (issue 28).

No registry serves base images here: the base is made from Debian's packages
(``tools/container-base.sh``: debootstrap, then ``docker import``; cached under a tag with a
hash of its recipe), the image is built on it by ``make image``, and one container after
another is driven over HTTP on the host's network: health without the token, a purchase, a
webhook to a receiver by a host name allowed through ``EMULATOR_CALLBACK_HOSTS``, a clock
advance, SIGTERM, and a second container on the same volume that finds it all. Skipped, saying
why, only where containers cannot run (no docker, no daemon, no root for debootstrap).

The suite's longest single unit: ``tests/conftest.py`` has xdist's loadscope hand out
``tests/container/`` first, so it runs on one worker while the other works through the rest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import DEFAULT_KEY
from tests.test_cli import free_port

pytestmark = pytest.mark.container

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "payments-emulator:suite"
TOKEN = "suite-admin-token"
DEFAULT = {"Authorization": f"Bearer {DEFAULT_KEY}"}
ADMIN = {"Authorization": f"Bearer {TOKEN}"}
BRAND = "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"
START = "2026-01-05T09:00:00Z"
TIMINGS: dict[str, float] = {}  # printed at the end (pytest -s): the report's figures


def why_containers_cannot_run() -> str | None:
    if shutil.which("docker") is None:
        return "docker is not installed (`make containers` installs Debian's docker.io)"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    if info.returncode != 0:
        last = (info.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"no docker daemon answers `docker info` ({last}); .ci/run starts one"
    if os.geteuid() != 0:
        return "the Debian base is made with debootstrap, which needs root"
    if shutil.which("debootstrap") is None:
        return "debootstrap is not installed (`make containers` installs it)"
    return None


def docker(*args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"docker {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


@pytest.fixture(scope="module")
def image() -> str:
    reason = why_containers_cannot_run()
    if reason is not None:
        pytest.skip(reason)
    began = time.monotonic()
    base = subprocess.run(
        [str(ROOT / "tools" / "container-base.sh")],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert base.returncode == 0, base.stderr[-3000:]
    tag = base.stdout.strip().splitlines()[-1]
    TIMINGS["base"] = time.monotonic() - began
    began = time.monotonic()
    # No IMAGE_PYTHON: make image asks the base for its Python (bookworm's 3.11) and glibc.
    built = subprocess.run(
        ["make", "-s", "image", f"IMAGE={IMAGE}", f"BASE={tag}"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    TIMINGS["image"] = time.monotonic() - began
    python = docker("run", "--rm", "--network", "none", tag, "python3", "-c",
                    "import sys; print('%d.%d' % sys.version_info[:2])")  # fmt: skip
    assert f"for Python {python}." in built.stdout, built.stdout
    return IMAGE


def test_a_base_that_cannot_be_run_is_refused_naming_image_python(image: str) -> None:
    """A base that is not here (and no registry to pull it from): one line, what to pass."""
    missing = f"payments-emulator-no-such-base:{uuid.uuid4().hex[:8]}"
    done = subprocess.run(
        ["make", "-s", "image", f"IMAGE={IMAGE}-refused", f"BASE={missing}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    first = done.stderr.strip().splitlines()[0]
    assert first.startswith(f"make image: cannot run python3 in BASE={missing} ("), done.stderr
    assert first.endswith("IMAGE_PYTHON=3.x"), first


class Receiver:
    """Webhooks, received on the host (the containers share its network)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with receiver.arrived:
                    receiver.bodies.append(body)
                    receiver.arrived.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.bodies) >= count, timeout)
            return list(self.bodies)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()
    found.server.server_close()


@pytest.fixture
def volume() -> Iterator[str]:
    name = f"payments-emulator-suite-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", name)
    yield name
    subprocess.run(["docker", "volume", "rm", "-f", name], capture_output=True, check=False)


class Container:
    def __init__(self, image: str, volume: str, port: int, env: dict[str, str]) -> None:
        self.name = f"payments-emulator-suite-{uuid.uuid4().hex[:8]}"
        self.url = f"http://127.0.0.1:{port}"
        options = [f"--env={k}={v}" for k, v in {"EMULATOR_PORT": str(port), **env}.items()]
        self.started = time.monotonic()
        docker("run", "--detach", "--name", self.name, "--network", "host",
               "--add-host", "receiver.test:127.0.0.1", "--volume", f"{volume}:/data",
               *options, image)  # fmt: skip

    def wait_healthy(self, timeout: float = 30) -> tuple[float, float]:
        """Seconds from ``docker run`` until the health check answers over HTTP, and until
        docker's own HEALTHCHECK says healthy."""
        answered = None
        while time.monotonic() - self.started < timeout:
            if answered is None:
                try:
                    if httpx.get(f"{self.url}/_emulator/health", timeout=1).status_code == 200:
                        answered = time.monotonic() - self.started
                except httpx.TransportError:
                    pass
            status = docker("inspect", "--format", "{{.State.Health.Status}}", self.name)
            if answered is not None and status == "healthy":
                return answered, time.monotonic() - self.started
            time.sleep(0.05)
        raise AssertionError(f"not healthy after {timeout} s:\n{self.logs()}")

    def stop(self) -> float:
        """SIGTERM; the seconds until the process has ended (its exit code must be 0)."""
        began = time.monotonic()
        docker("kill", "--signal", "TERM", self.name)
        code = docker("wait", self.name, timeout=30)
        took = time.monotonic() - began
        assert code == "0", self.logs()
        return took

    def logs(self) -> str:
        done = subprocess.run(["docker", "logs", self.name], capture_output=True, text=True,
                              check=False)  # fmt: skip
        return done.stdout + done.stderr

    def remove(self) -> None:
        subprocess.run(["docker", "rm", "-f", self.name], capture_output=True, check=False)


def test_the_image_serves_stops_cleanly_and_keeps_its_data(
    image: str, receiver: Receiver, volume: str
):
    size = int(docker("image", "inspect", "--format", "{{.Size}}", image))
    assert size <= 250 * 1024 * 1024, f"{size / 2**20:.0f} MB"
    config = json.loads(docker("image", "inspect", "--format", "{{json .Config}}", image))
    assert config["User"] == "emulator" and "8400/tcp" in config["ExposedPorts"]
    assert "/data" in config["Volumes"]

    port = free_port()
    env = {"EMULATOR_ADMIN_TOKEN": TOKEN, "EMULATOR_CALLBACK_HOSTS": "receiver.test",
           "EMULATOR_CLOCK": "frozen", "EMULATOR_START": START}  # fmt: skip
    first = Container(image, volume, port, env)
    try:
        TIMINGS["health answers"], TIMINGS["healthy"] = first.wait_healthy()
        url = first.url
        health = httpx.get(f"{url}/_emulator/health")  # no token: status and version only
        assert set(health.json()) == {"status", "version"}
        assert httpx.get(f"{url}/_emulator/clock").status_code == 401  # off loopback: a token
        hook = {"title": "t", "events": ["purchase.created"],
                "callback": f"http://receiver.test:{receiver.port}/hook"}  # fmt: skip
        made = httpx.post(f"{url}/api/v1/webhooks/", json=hook, headers=DEFAULT)
        assert made.status_code == 201, made.text
        purchase = {"brand_id": BRAND, "client": {"email": "a@example.com"},
                    "purchase": {"products": [{"name": "x", "price": 100}]}}  # fmt: skip
        created = httpx.post(f"{url}/api/v1/purchases/", json=purchase, headers=DEFAULT)
        assert created.status_code == 201, created.text
        delivered = receiver.wait_for(1)
        assert [b["event_type"] for b in delivered] == ["purchase.created"], first.logs()
        assert delivered[0]["id"] == created.json()["id"]
        # The compose example's app, on the image's Python: its webhook reaches it by name.
        app_port = free_port()
        app = subprocess.run(
            ["docker", "run", "--rm", "--network", "host", "--entrypoint", "python3",
             "--volume", f"{ROOT / 'examples' / 'app'}:/app:ro", f"--env=EMULATOR_URL={url}",
             f"--env=APP_URL=http://receiver.test:{app_port}", f"--env=APP_PORT={app_port}",
             image, "/app/app.py"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert app.returncode == 0, app.stdout + app.stderr + first.logs()
        assert "app: received purchase.created for " in app.stdout
        advanced = httpx.post(f"{url}/_emulator/clock/advance", json={"days": 1}, headers=ADMIN)
        assert advanced.json()["now"] == "2026-01-06T09:00:00Z", advanced.text
        # Acknowledged right before SIGTERM: it must survive the stop.
        last = httpx.post(f"{url}/api/v1/purchases/", json=purchase, headers=DEFAULT)
        assert last.status_code == 201
        kept = {
            made.json()["id"]: httpx.get(
                f"{url}/api/v1/purchases/{made.json()['id']}/", headers=DEFAULT
            ).json()["status"]
            for made in (created, last)
        }
        assert list(kept.values()) == ["overdue", "created"]  # the advance moved the first
        TIMINGS["SIGTERM to exit"] = first.stop()
        assert TIMINGS["SIGTERM to exit"] < 2.0, first.logs()
    finally:
        first.remove()

    # The same volume, no clock in the environment: the stored (advanced) clock comes back.
    second = Container(image, volume, port, {"EMULATOR_ADMIN_TOKEN": TOKEN})
    try:
        second.wait_healthy()
        for purchase_id, status in kept.items():
            got = httpx.get(f"{second.url}/api/v1/purchases/{purchase_id}/", headers=DEFAULT)
            assert (got.status_code, got.json()["status"]) == (200, status)
        clock = httpx.get(f"{second.url}/_emulator/clock", headers=ADMIN).json()
        assert (clock["mode"], clock["now"]) == ("frozen", "2026-01-06T09:00:00Z")
        assert "existing file, reused" in second.logs()
        second.stop()
    finally:
        second.remove()
    print("\ncontainer timings (s):", {k: round(v, 2) for k, v in TIMINGS.items()})
