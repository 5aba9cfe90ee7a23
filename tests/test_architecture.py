"""Dependencies point inward: the layers in ``LAYERS``, outermost first, and the map of the code
(docs/architecture.md) that names every module."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import emulator

PACKAGE = Path(emulator.__file__).parent
MAP = PACKAGE.parent / "docs" / "architecture.md"
# The libraries that do I/O or serve HTTP: a layer imports those in its ``uses`` only.
IO = ("starlette", "uvicorn", "httpx", "aiosqlite", "sqlite3")


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]  # prefixes: a module is in the layer of the longest one naming it
    uses: tuple[str, ...] = ()  # which of ``IO`` it may import


# Outermost first. A module may import modules of its own layer and of the layers after it,
# never of one before it, not even for type hints (under ``if TYPE_CHECKING:``). A module of a
# wing's slice (``emulator/gateway/purchases/service.py``) is in the layer of its file's role
# (``ROLE_LAYERS``); the wing's own modules beside its slices are its HTTP shell.
LAYERS = (
    # `python -m emulator` and the command line (serve, the client verbs, trigger, listen):
    # anything below.
    Layer("cli", ("emulator.__main__", "emulator.cli"), ("httpx", "uvicorn")),
    # The test helpers (client, actors, live server, pytest plugin): serving and below.
    Layer("testing", ("emulator.testing",), ("httpx", "uvicorn")),
    # Serving the app (app, startup, options, logs, TLS): puts http and the runtime together.
    Layer("serving", ("emulator.serving",), ("starlette", "httpx", "uvicorn", "sqlite3")),
    # The HTTP shell and every slice's ``routes``: decode → one service call → encode.
    Layer(
        "http",
        ("emulator.http", *(f"emulator.{wing}" for wing in ("gateway", "bank", "sandbox", "core"))),
        ("starlette", "uvicorn"),
    ),
    # The OpenAPI documents: read the structs of the layers below; only http serves them.
    Layer("openapi", ("emulator.openapi",)),
    # Flows: the file format, its references and the runner (over HTTP, through httpx).
    Layer("flows", ("emulator.flows",), ("httpx",)),
    # The composition root, its settings and the job table: builds everything below, owns it.
    Layer("runtime", ("emulator.runtime",), ("httpx",)),
    # Every slice's ``service`` and ``jobs``: one function per use case, typed against
    # kernel.context.Context, never the runtime.
    Layer("services", (), ("sqlite3",)),
    # The outbox's routers (every slice's ``router``), messages and sends (its own HTTP client).
    Layer("delivery", ("emulator.delivery",), ("httpx",)),
    # The decision points and the scenario engine.
    Layer("scenarios", ("emulator.scenarios",)),
    # Every slice's ``repo``: SQL on the kernel's units of work.
    Layer("repos", ("emulator.delivery.repo", "emulator.scenarios.repo"), ("sqlite3",)),
    # Clock, scheduler, storage, outbox, journal, ids; the services' Context.
    Layer("kernel", ("emulator.kernel",), ("sqlite3", "aiosqlite")),
    # Finds the shipped data folders (fixtures, scenario library) and reads them.
    Layer("resources", ("emulator.resources",)),
    # Pure: every slice's ``rules``, ``model`` and ``input``, and the shared values of
    # ``emulator/domain/``; no I/O, no clock reads.
    Layer("domain", ("emulator.domain",)),
    # The package itself (its version, the slices' roles).
    Layer("package", ("emulator",)),
)
WINGS = ("gateway", "bank", "sandbox", "core")
ROLE_LAYERS = {
    "routes": "http", "service": "services", "jobs": "services", "router": "delivery",
    "repo": "repos", "rules": "domain", "model": "domain", "input": "domain",
}  # fmt: skip
TOP_FILES = {"__init__.py", "__main__.py", "py.typed"}  # py.typed: the PEP 561 marker


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def role_of(module: str) -> str | None:
    """The role of a slice's module (``emulator.WING.SLICE.ROLE[_PART]``), else None."""
    parts = module.split(".")
    if len(parts) == 4 and parts[1] in WINGS:
        return parts[3].split("_")[0]
    return None


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of the module's layer: its role's, or the longest prefix's."""
    role = role_of(module)
    if role in ROLE_LAYERS:
        return [layer.name for layer in LAYERS].index(ROLE_LAYERS[role])
    best, index = -1, -1
    for i, layer in enumerate(LAYERS):
        for prefix in layer.modules:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    return index


@cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module ``path`` imports, anywhere in it (functions and TYPE_CHECKING included);
    ``from package import module`` names the module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
    return frozenset(found)


def test_every_module_is_in_a_layer():
    """A new package needs its place in ``LAYERS`` (and on the map); every role of
    ``emulator.ROLES`` has a layer, and no other name does."""
    assert set(ROLE_LAYERS) == set(emulator.ROLES)
    assert {m for m in MODULES if layer_of(m) < 0} == set()


def test_no_module_imports_a_layer_above_its_own():
    """Type-only imports count: a type hint from an outer layer is still a dependency on it."""
    offenders = {
        f"{module} ({LAYERS[layer_of(module)].name}) imports {name} ({LAYERS[layer_of(name)].name})"
        for module, path in MODULES.items()
        for name in imports_of(path)
        if name.split(".")[0] == "emulator" and layer_of(name) < layer_of(module)
    }
    assert offenders == set()


def test_layers_import_only_their_io_libraries():
    """HTTP, SQLite and outgoing calls stay at the edges each layer's ``uses`` names."""
    offenders = {
        f"{module}: {name}"
        for module, path in MODULES.items()
        for name in imports_of(path)
        if name.split(".")[0] in IO and name.split(".")[0] not in LAYERS[layer_of(module)].uses
    }
    assert offenders == set()


def test_domain_is_pure():
    """emulator/domain imports nothing but itself (and the package): no HTTP, storage,
    service, kernel or I/O module."""
    domain = [layer.name for layer in LAYERS].index("domain")
    assert LAYERS[domain].uses == ()
    assert all(layer_of(m) == domain for m in MODULES if m.startswith("emulator.domain."))
    offenders = {
        f"{module}: {name}"
        for module, path in MODULES.items()
        if layer_of(module) == domain
        for name in imports_of(path)
        if name.split(".")[0] in IO or (name.startswith("emulator.") and layer_of(name) != domain)
    }
    assert offenders == set()


def test_only_the_http_layer_imports_starlette():
    """Services, repositories and the kernel know nothing of HTTP: only http and the serving
    of the app (which puts it together) use Starlette."""
    assert {layer.name for layer in LAYERS if "starlette" in layer.uses} == {"http", "serving"}


def test_no_service_imports_the_runtime():
    """Services are typed against kernel.context.Context; the runtime is their caller."""
    offenders = {
        f"{module}: {name}"
        for module, path in MODULES.items()
        if role_of(module) in ("service", "jobs")
        for name in imports_of(path)
        if name.startswith(("emulator.serving", "emulator.runtime"))
    }
    assert offenders == set()


OVER_300 = 20


def test_modules_stay_small():
    """Modules are named for what they hold: none over 400 lines, and those over 300 no more
    than ``OVER_300`` (the aim is fewer than ten; it only goes down)."""
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 400} == {}
    assert len([n for n in sizes.values() if n > 300]) <= OVER_300


# -- slices ------------------------------------------------------------------------------------

# Outermost first: a wing's slice may import the slices after it in its wing, never one
# before it (so a feature's dependencies read one way, and no two slices need each other).
# The wing's own modules (its HTTP shell) are outside the order: they mount every slice.
SLICE_ORDER = {
    "sandbox": (
        "state", "merchants", "flows", "objects", "expectations", "sink", "control",
        "schedule", "holds", "receiver_checks", "actors", "console", "deliveries", "docs",
        "scenarios", "tls",
    ),
    "gateway": ("statements", "billing", "purchases", "webhooks", "payouts", "clients", "account"),
    "bank": (
        "statements", "events", "callbacks", "payments", "collections", "mandates",
        "verification", "profiles", "common", "calendar",
    ),
    "core": ("auth", "merchants", "retention", "ledger"),
}  # fmt: skip
# Which wings a wing may import: sandbox drives both interfaces; they share only core.
WING_USES = {
    "sandbox": {"gateway", "bank", "core"},
    "gateway": {"core"},
    "bank": {"core"},
    "core": set(),
}


def slice_of(module: str) -> tuple[str, str | None] | None:
    """(wing, slice) of a wing's module; slice None for the wing's own (shell) modules."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in WINGS:
        return None
    return parts[1], parts[2] if len(parts) == 4 else None


def test_every_slice_has_its_place_in_the_order():
    found = {
        (parts[1], parts[2])
        for module in MODULES
        if len(parts := module.split(".")) == 4 and parts[1] in WINGS
    }
    assert found == {(wing, name) for wing, names in SLICE_ORDER.items() for name in names}


def test_slices_import_only_the_slices_after_them_and_wings_only_theirs():
    offenders = set()
    for module, path in MODULES.items():
        here = slice_of(module)
        if here is None:
            continue
        for name in imports_of(path):
            there = slice_of(name)
            if there is None or there == here:
                continue
            if there[0] != here[0]:
                if there[0] not in WING_USES[here[0]]:
                    offenders.add(f"{module} imports {name}: wing {there[0]}")
            elif here[1] is not None and there[1] is not None:
                order = SLICE_ORDER[here[0]]
                if order.index(there[1]) < order.index(here[1]):
                    offenders.add(f"{module} imports {name}: {there[1]} is before {here[1]}")
    assert offenders == set()


# What a slice module of each role may import of other slices' modules, by their role (the
# layers above already keep every role off the floors above its own). ``None``: a wing's
# shell module.
ROLE_IMPORTS: dict[str, set[str | None]] = {
    "rules": {"rules", "model", "input"},
    "model": {"rules", "model", "input"},
    "input": {"rules", "model", "input"},
    "repo": {"repo", "rules", "model", "input"},
    "router": {"repo", "rules", "model", "input"},
    "service": {"service", "jobs", "router", "repo", "rules", "model", "input"},
    "jobs": {"service", "jobs", "router", "repo", "rules", "model", "input"},
    # decode → one service call → encode: never a repository, a job or a router
    "routes": {"routes", "service", "rules", "model", "input", None},
}


def test_each_role_imports_only_the_roles_it_may():
    assert set(ROLE_IMPORTS) == set(emulator.ROLES)
    offenders = {
        f"{module} ({role}) imports {name} ({role_of(name) or 'shell'})"
        for module, path in MODULES.items()
        if (role := role_of(module)) is not None
        for name in imports_of(path)
        if slice_of(name) is not None and role_of(name) not in ROLE_IMPORTS[role]
    }
    assert offenders == set()


def test_the_documents_describe_the_layers_and_nothing_depends_on_them():
    """emulator/openapi reads the structs of the inner layers; only the HTTP layer that serves
    the documents imports it."""
    importers = {
        str(path.relative_to(PACKAGE))
        for module, path in MODULES.items()
        if not module.startswith("emulator.openapi")
        and any(name.startswith("emulator.openapi") for name in imports_of(path))
    }
    assert importers == {"sandbox/docs/routes.py"}


def test_the_top_of_the_package_holds_only_its_entry_points_and_packages():
    """No loose modules at the top of emulator/: the directory listing is the architecture."""
    entries = [p for p in PACKAGE.iterdir() if p.name != "__pycache__"]
    files = {p.name for p in entries if p.is_file()}
    assert files <= TOP_FILES
    assert {p.name for p in entries if p.is_dir() and not (p / "__init__.py").is_file()} == set()


# -- the map -----------------------------------------------------------------------------------


def test_the_map_names_every_module():
    """docs/architecture.md names each module by its path from the repository's root, in
    backticks (`emulator/kernel/clock.py`)."""
    text = MAP.read_text()
    missing = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in MODULES.values()
        if f"`{path.relative_to(PACKAGE.parent).as_posix()}`" not in text
    }
    assert missing == set()


def test_the_map_names_no_module_that_does_not_exist():
    """A module renamed or removed is renamed or removed on the map too."""
    named = set(re.findall(r"`(emulator/[\w/]+(?:\.py|/))`", MAP.read_text()))
    assert named, "the map names modules as `emulator/...py`"
    assert {p for p in named if not (PACKAGE.parent / p).exists()} == set()


def test_the_map_lists_the_layers_in_order():
    """The map's table of layers has one row per layer of ``LAYERS``, in the same order."""
    rows = re.findall(r"^\| \*\*(\w+)\*\* \|", MAP.read_text(), flags=re.MULTILINE)
    assert rows == [layer.name for layer in LAYERS]
