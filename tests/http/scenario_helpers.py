"""Helpers of the scenario outcome tests: load a one-rule scenario and activate it for a
merchant, make a second merchant."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx

_names = itertools.count(1)


def rule_yaml(
    name: str,
    when: str,
    then: dict[str, Any],
    match: dict[str, Any] | None = None,
    times: int | None = None,
) -> str:
    """A scenario of one rule. Values are written as JSON flow mappings, which are YAML."""
    lines = [f"name: {name}", "rules:", f"  - when: {when}", f"    then: {json.dumps(then)}"]
    if match is not None:
        lines.append(f"    match: {json.dumps(match)}")
    if times is not None:
        lines.append(f"    times: {times}")
    return "\n".join(lines) + "\n"


async def activate(
    http: httpx.AsyncClient,
    merchant: dict[str, Any],
    when: str,
    then: dict[str, Any],
    match: dict[str, Any] | None = None,
    times: int | None = None,
) -> str:
    """Load a one-rule scenario and activate it for ``merchant`` only; its name."""
    name = f"{when.replace('.', '-')}-{next(_names)}"
    loaded = await http.post(
        "/_emulator/scenarios", content=rule_yaml(name, when, then, match, times)
    )
    assert loaded.status_code == 201, loaded.text
    response = await http.post(
        f"/_emulator/scenarios/{name}/activate", json={"merchant": merchant["company_id"]}
    )
    assert response.status_code == 200, response.text
    return name


async def new_merchant(http: httpx.AsyncClient) -> dict[str, Any]:
    response = await http.post("/_emulator/merchants")
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
