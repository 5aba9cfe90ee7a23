"""``docs/reference/clients.md``: the test helpers in Python, Node and PHP side by side, one row
per public method of ``emulator.testing``'s ``EmulatorClient``, ``Sink`` and ``EmulatorClock``,
from the clients' ``clients/*/operations.json`` (which ``tests/clients/`` checks against the
classes and the clients' own code)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from emulator.testing import EmulatorClient, EmulatorClock, Sink
from tools.markdown import code, page, table

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "clients"
LANGUAGES = (("node", "Node (`clients/node/`)"), ("php", "PHP (`clients/php/`)"))
CLASSES = (EmulatorClient, Sink, EmulatorClock)


def _summary(member: Any) -> str:
    doc = inspect.getdoc(member) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def clients_page() -> str:
    manifests = {
        name: json.loads((CLIENTS / name / "operations.json").read_text()) for name, _ in LANGUAGES
    }
    body = [
        "The same helpers in the three languages: the Python package `emulator.testing`"
        " ([pytest](../pytest.md)), the [Node package](../clients/node.md) and the"
        " [PHP package](../clients/php.md). Each row is a public method of the Python class;"
        " a test fails when a Python method is added that a client does not map.",
    ]
    for cls in CLASSES:
        titles = {
            name: m.get("_classes", {}).get(cls.__name__, "") for name, m in manifests.items()
        }
        body += ["", f"## {cls.__name__}", ""]
        body.append(
            "In Node: " + code(titles["node"].rpartition("\\")[2]) + "; in PHP: "
            + code(titles["php"]) + "."
        )  # fmt: skip
        body.append("")
        rows = []
        for name, member in inspect.getmembers(cls):
            if name.startswith("_") or not (callable(member) or isinstance(member, property)):
                continue
            key = f"{cls.__name__}.{name}"
            cells: list[object] = [code(name)]
            for language, _ in LANGUAGES:
                mapped = manifests[language].get(key)
                reason = manifests[language].get("_reasons", {}).get(key, "")
                cells.append(code(mapped) if mapped else f"none: {reason}")
            cells.append(_summary(member))
            rows.append(cells)
        body += table(("Python", *(title for _, title in LANGUAGES), "What it does"), rows)
    return page("Clients side by side", "`clients/*/operations.json`", body)
