"""The manual's recipes (docs/recipes.md) are true: each one's requests, parsed out of its
```http blocks (the REST Client format), run in order against the app, every answer a success,
and the flow ends where the recipe says."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

RECIPES = Path(__file__).resolve().parent.parent / "docs" / "recipes.md"
ORIGIN = "http://127.0.0.1:8400"
REFERENCE = re.compile(r"\{\{(\w+)\.response\.body\.\$\.([\w.]+)\}\}")
VARIABLE = re.compile(r"^@(\w+)\s*=\s*(\S+)\s*$", re.M)  # a file variable: @name = value
USE = re.compile(r"\{\{(\w+)\}\}")


@dataclass
class Request:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    name: str | None = None


def parse(text: str, variables: dict[str, str]) -> Request | None:
    """One request of a ``.http`` block: ``# @name``, comments, the request line, headers, a
    blank line and the body; the block's file variables (``{{EMULATOR_URL}}``) filled in."""
    text = VARIABLE.sub("", text)
    text = USE.sub(lambda match: variables.get(match.group(1), match.group(0)), text)
    lines = text.strip("\n").splitlines()
    name, request = None, None
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        index += 1
        if line.startswith("# @name "):
            name = line.removeprefix("# @name ").strip()
        elif line and not line.startswith("#"):
            method, url = line.split(" ", 1)
            request = Request(method, url.strip(), name=name)
            break
    if request is None:
        return None
    while index < len(lines) and lines[index].strip():
        key, value = lines[index].split(":", 1)
        request.headers[key.strip()] = value.strip()
        index += 1
    request.body = "\n".join(lines[index:]).strip()
    return request


def recipes() -> dict[str, list[Request]]:
    text = RECIPES.read_text(encoding="utf-8")
    found: dict[str, list[Request]] = {}
    for chunk in text.split("\n## ")[1:]:
        title, rest = chunk.split("\n", 1)
        blocks = re.findall(r"```http\n(.*?)```", rest, flags=re.S)
        variables = {k: v for block in blocks for k, v in VARIABLE.findall(block)}
        parts = [p for block in blocks for p in re.split(r"^###[ \t]*$", block, flags=re.M)]
        requests = (parse(part, variables) for part in parts)
        found[title.strip()] = [r for r in requests if r is not None]
    return found


def fill(text: str, answers: dict[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        current = answers[match.group(1)]
        for key in match.group(2).split("."):
            current = current[key]
        return str(current)

    return REFERENCE.sub(value, text)


def sink_events(answer: dict[str, Any]) -> list[Any]:
    return [message["json"] for message in answer["messages"]]


def purchase_paid(last: dict[str, Any]) -> None:
    (message,) = sink_events(last)
    assert (message["event_type"], message["status"]) == ("purchase.paid", "paid")


def captured(last: dict[str, Any]) -> None:
    assert last["status"] == "paid" and last["payment"]["amount"] == 60000


def payout(last: dict[str, Any]) -> None:
    assert last["status"] == "success"


def subscription(last: dict[str, Any]) -> None:
    assert (last["status"], last["number_of_billing_cycles_passed"]) == ("active", 2)


def eft_callback(last: dict[str, Any]) -> None:
    assert [m["status"] for m in sink_events(last)] == ["PENDING", "COMPLETED"]


def debicheck(last: dict[str, Any]) -> None:
    assert last["status"] == "COMPLETED"


ENDS: dict[str, Callable[[dict[str, Any]], None]] = {
    "Purchase, paid on the checkout page, and its webhook": purchase_paid,
    "Hold and capture": captured,
    "Payout": payout,
    "Subscription": subscription,
    "EFT collection and its callback": eft_callback,
    "DebiCheck mandate, then a collection on it": debicheck,
}


def test_every_recipe_is_checked() -> None:
    assert list(recipes()) == list(ENDS)
    assert all(len(steps) >= 3 for steps in recipes().values())


@pytest.mark.parametrize("title", list(ENDS))
async def test_the_recipe_works(http: httpx.AsyncClient, title: str) -> None:
    answers: dict[str, Any] = {}
    last: Any = None
    for step in recipes()[title]:
        assert step.url.startswith((ORIGIN, "{{")), step.url
        url = httpx.URL(fill(step.url, answers))  # an answer's URL names the app's own host
        headers = {k: fill(v, answers) for k, v in step.headers.items()}
        body = fill(step.body, answers).encode()
        response = await http.request(
            step.method, url.raw_path.decode(), headers=headers, content=body or None
        )
        assert response.is_success, f"{step.method} {url}: {response.status_code} {response.text}"
        last = response.json() if response.content else None
        if step.name is not None:
            answers[step.name] = last
        if headers.get("Content-Type") == "application/json" and body:
            json.loads(body)  # the recipe's body is JSON as written
    ENDS[title](last)
