# One target per task; CI runs the same targets (.ci/run calls `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two installs in one virtualenv: `run` needs the package alone, the rest its dev extra too.
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run

.PHONY: bytecode run test test-latest test-lowest lock lint typecheck unit quick memory-tests bench browser \
	containers clients image reference clean docs docs-check

# Every Python package is locked: uv.lock holds the version and hashes of each, direct and
# transitive, for every platform and Python that pyproject.toml's ranges allow; the venv is
# synced to it exactly (--locked: refused while uv.lock is older than pyproject.toml's ranges,
# until `make lock`). uv itself is pinned with its hashes in requirements/uv.txt, installed
# by pip into a venv of its own; the emulator's build backend (hatchling and what it needs) in
# pyproject.toml's [tool.uv] build-constraint-dependencies. uv never downloads a Python here:
# it uses $(PYTHON).
UV_VENV := .uv
UV := $(UV_VENV)/bin/uv
export UV_PYTHON_DOWNLOADS := never
SYNC = UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --quiet --locked --compile-bytecode \
	--python $(PYTHON) --require-build-hashes

# The lock's versions as requirements (no hashes): the build backend's constraints and what
# test-latest compares with.
EXPORT = $(UV) export --frozen --quiet --extra dev --no-emit-project --no-hashes \
	--format requirements-txt

$(UV): requirements/uv.txt
	rm -rf $(UV_VENV)
	$(PYTHON) -m venv $(UV_VENV)
	$(UV_VENV)/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: \
		--require-hashes -r requirements/uv.txt
	touch $(UV)

$(RUN_STAMP): pyproject.toml uv.lock | $(UV)
	$(SYNC)
	touch $(RUN_STAMP)

# The dev install includes everything serving needs: it stamps both.
$(STAMP): pyproject.toml uv.lock | $(UV)
	$(SYNC) --extra dev
	touch $(STAMP) $(RUN_STAMP)

# `make lock` takes pyproject.toml's changed ranges into uv.lock and keeps every other version;
# `make lock UPGRADE=1` moves every package, uv and the build backend to the newest allowed.
lock: | $(UV)  ## refresh uv.lock (and the build backend's and uv's pins) from pyproject.toml
	$(UV) lock --quiet $(if $(UPGRADE),--upgrade)
	@mkdir -p build
	$(EXPORT) --output-file build/locked.txt
	$(PYTHON) -m tools.build_lock $(if $(UPGRADE),inputs,pins) > build/build-pins.txt
	$(PYTHON) -m tools.build_lock inputs | \
		$(UV) pip compile --quiet --universal --generate-hashes --no-header --no-annotate \
		--constraints build/locked.txt --constraints build/build-pins.txt \
		--output-file build/build-lock.txt -
	$(PYTHON) -m tools.build_lock write build/build-lock.txt
	$(UV) lock --quiet
	echo "uv$(if $(UPGRADE),,==$$($(UV) --version | cut -d' ' -f2))" | \
		$(UV) pip compile --quiet --universal --generate-hashes --no-header --no-annotate \
		$(if $(UPGRADE),--upgrade) --output-file requirements/uv.txt -

run: $(RUN_STAMP)  ## serve on 127.0.0.1:8400 with the default merchant seeded from fixtures/
	$(BIN)/payments-emulator serve $(ARGS)

test: lint typecheck docs-check unit  ## lint, type check, the manual's build and the whole suite

# The whole suite on the newest versions pyproject.toml's ranges allow, not the lock's, so that
# a release that breaks us is found here, on purpose; `make test-lowest` on the oldest (each
# direct dependency at its lower bound), so that a range never admits what fails. A fresh venv
# each time (.venv-latest, .venv-lowest); its versions printed beside the lock's before the
# suite, and the result with those versions after.
test-latest: RANGE_VENV := .venv-latest
test-latest: RESOLUTION := highest
test-latest: VERSIONS := the newest allowed versions
test-lowest: RANGE_VENV := .venv-lowest
test-lowest: RESOLUTION := lowest-direct
test-lowest: VERSIONS := the lowest allowed versions
test-latest test-lowest: | $(UV)  ## the whole suite on the newest (lowest) allowed versions
	rm -rf $(RANGE_VENV)
	$(UV) venv --quiet --python $(PYTHON) $(RANGE_VENV)
	$(UV) pip install --quiet --refresh --compile-bytecode --resolution $(RESOLUTION) \
		--python $(RANGE_VENV)/bin/python -e '.[dev]'
	touch $(RANGE_VENV)/.installed $(RANGE_VENV)/.installed-run
	@$(EXPORT) | $(RANGE_VENV)/bin/python -m tools.latest > $(RANGE_VENV)/versions.txt
	@cat $(RANGE_VENV)/versions.txt
	@$(MAKE) --no-print-directory VENV=$(RANGE_VENV) test; status=$$?; \
		echo; echo "make $@: $$([ $$status = 0 ] && echo passed || echo FAILED)" \
		"on $(VERSIONS) ($(RANGE_VENV)/versions.txt):"; \
		cat $(RANGE_VENV)/versions.txt; exit $$status

lint: $(STAMP)
	$(BIN)/ruff check emulator tests bench tools
	$(BIN)/ruff format --check emulator tests bench tools

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite runs on every core, two at most (pytest-xdist: each worker its own servers, files
# and browser); WORKERS=1 runs it in one process. A module stays on one worker (loadscope):
# its module-scoped servers start once, not once per worker.
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -lt 2 ] && echo $$n || echo 2)
XDIST = -p xdist -n $(WORKERS) --dist loadscope

# The bytecode of the package and the suite, written once: every server and CLI process the
# suite starts reads it instead of compiling some 260 modules again (nothing writes it where
# PYTHONDONTWRITEBYTECODE=1 is set, as on the CI machine).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 emulator tests bench tools

unit: $(STAMP) bytecode browser containers clients
	$(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

# The in-process API tests on a database in memory (serve --ephemeral) instead of a file; the
# few that read or reopen the file are skipped (marked needs_file). About a minute on two cores.
memory-tests: $(STAMP) bytecode
	$(BIN)/pytest $(XDIST) --db-mode=memory tests/http $(PYTEST_ARGS)

# Everything but the browser, the container and the slow tests: a minute on two cores.
quick: $(STAMP) bytecode
	$(BIN)/pytest $(XDIST) -m "not slow and not browser and not container" $(PYTEST_ARGS)

# Pages are tested in a real browser: Debian's headless Chromium and its driver (Selenium drives
# them; a browser download of its own cannot reach the internet here). Installed when missing.
CHROMEDRIVER := /usr/bin/chromedriver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@test -x $(CHROMEDRIVER) || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver; }

# The PHP test helpers (clients/php/) are tested with Debian's PHP and PHPUnit
# (tests/clients/test_php_client.py; Packagist is out of reach). Installed when missing.
clients:
	@command -v php >/dev/null && command -v phpunit >/dev/null && php -m | grep -qx curl || { \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install \
		-y -qq --no-install-recommends php-cli php-curl php-xml php-mbstring phpunit; }

# The container test (tests/container/) builds a base from Debian's packages with debootstrap
# and runs the image with Debian's docker.io (.ci/run starts dockerd); docker-compose validates
# examples/docker-compose.yml. Installed when missing, like the browser.
containers:
	@command -v docker >/dev/null && command -v debootstrap >/dev/null && \
		command -v docker-compose >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
		docker.io debootstrap docker-compose; }

# The image (Dockerfile): the emulator's wheel and, for the base's own Python (asked of the
# base: one `docker run` of its python3), the wheels of every locked package at uv.lock's
# versions and hashes, into build/wheels/ (tools/image_wheels.py); then a build that needs no
# network. IMAGE_PYTHON=3.x answers for a base that cannot be run here. Its install stage is
# tagged too (<IMAGE>-install) so that the build cache survives while the untagged images
# earlier builds left behind are pruned.
#   make image [IMAGE=payments-emulator] [BASE=python:3.12-slim] [IMAGE_PYTHON=]
IMAGE ?= payments-emulator
BASE ?= python:3.12-slim
IMAGE_PYTHON ?=
image: $(STAMP)
	@$(BIN)/python -m tools.image_wheels "$(BASE)" --python "$(IMAGE_PYTHON)" --uv $(UV) \
		--pip $(UV_VENV)/bin/pip
	docker build --quiet --build-arg BASE=$(BASE) --target install --tag $(IMAGE)-install .
	docker build --quiet --build-arg BASE=$(BASE) --tag $(IMAGE) .
	docker image prune --force --filter label=org.payments-emulator.build=1 >/dev/null

# The manual (docs/, MkDocs with the Material theme). --strict turns every warning into a failure:
# a page left out of the nav, a broken link or anchor, a missing include (mkdocs.yml says which).
# NO_MKDOCS_2_WARNING quiets Material's banner about its successor, printed on every build.
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs

docs: $(STAMP)  ## build the manual into site/; `.venv/bin/mkdocs serve` previews it
	$(MKDOCS) build --strict

# The same build into a directory thrown away, so `make test` leaves no site/ behind.
docs-check: $(STAMP)
	@dir=$$(mktemp -d) && $(MKDOCS) build --strict --site-dir "$$dir"; \
		status=$$?; rm -rf "$$dir"; exit $$status

bench: $(STAMP)  ## benchmark harness: prints throughput, latency and timing figures
	$(BIN)/python -m bench $(ARGS)

reference: $(STAMP)  ## regenerate docs/reference/ from the code (a test fails while it is stale)
	$(BIN)/python -m tools.reference

clean:
	rm -rf $(VENV) $(UV_VENV) .venv-latest .venv-lowest .emulator .pytest_cache .mypy_cache .ruff_cache
