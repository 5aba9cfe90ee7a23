"""A merchant's session as a flow file (``GET /_emulator/merchants/{id}/flow.yaml``): pure.

The input is what happened to the merchant, read by the route: its journaled API calls (the
writes), the other side's moves made for it through the control plane and the pages, the
instants of both, its objects' final statuses and its deliveries. The output is the YAML of a
flow that replays the session on a fresh merchant: ids met in an earlier answer become
``${name.path}`` references to it (``save:`` names from the object's type: ``purchase_1``),
the merchant's own ids become ``${merchant.*}``, a gap between two instants becomes an
``advance`` step, and the last step is an ``expect`` of each object's final status and of the
deliveries by event type and count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import yaml

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
MIN_ADVANCE_US = 1_000_000  # gaps shorter than a second are a real clock's drift, not a move
WRITES = ("POST", "PUT", "PATCH", "DELETE")
APIS = {"gateway": "gateway", "bank": "bank"}  # the journal's interface -> the flow's api
MAX_STEPS = 10_000


@dataclass(frozen=True)
class Call:
    """A journal entry of the merchant (``id`` orders it among the moves)."""

    id: int
    at_us: int
    interface: str
    method: str
    path: str
    query: str
    status: int
    request_body: str
    response_body: str


@dataclass(frozen=True)
class Move:
    """A move of the other side made for the merchant, after journal entry ``after_id``:
    ``verb`` is the flow's ``act`` verb, ``args`` its other keys (ids still raw)."""

    after_id: int
    at_us: int
    verb: str
    object_id: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Final:
    """An object's status now; ``shown``: one of its events carries that status (so a
    ``transition`` expectation can see it)."""

    object_id: str
    status: str
    shown: bool


@dataclass(frozen=True)
class Session:
    name: str
    merchant: dict[str, Any]  # as POST /_emulator/merchants answers
    calls: list[Call]
    moves: list[Move]
    start_us: int  # the instant the replay's merchant starts at
    now_us: int  # the merchant's instant now: the session ends there
    finals: list[Final]
    deliveries: dict[tuple[str, str], int]  # (kind, event type) -> attempts answered 2xx
    url: str = ""  # the emulator's own address: a URL under it becomes ``${run.url}...``


def duration(us: int) -> str:
    """``3d``, ``1h30m``, ``90s`` style; milliseconds when the gap has them."""
    ms, rest_us = divmod(us, 1000)
    if rest_us >= 500:
        ms += 1
    out = []
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        n, ms = divmod(ms, size)
        if n:
            out.append(f"{n}{unit}")
    if ms:
        out.append(f"{ms}ms")
    return "".join(out) or "0s"


def iso_us(us: int) -> str:
    from datetime import UTC, datetime, timedelta

    at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
    text = at.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{at.microsecond:06d}Z" if at.microsecond else f"{text}Z"


def _json(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


_NOT_JSON = object()


def _walk(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, (*path, str(i)))


def _is_id(path: tuple[str, ...], value: Any) -> bool:
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        return False
    if UUID.fullmatch(value):
        return True
    key = path[-1] if path else ""
    return key == "id" or key.endswith("_id") or key.endswith("Id")


def _type_of(call: Call, answer: Any) -> str:
    """The object's type: the answer's ``type`` (gateway objects), else the path's noun."""
    if isinstance(answer, dict):
        kind = answer.get("type")
        if isinstance(kind, str) and re.fullmatch(r"[a-z_]{1,40}", kind):
            return kind
    words = [
        w
        for w in call.path.split("/")
        if w and w not in ("api", "v1", "v2") and not UUID.fullmatch(w) and not w.isdigit()
    ]
    noun = re.sub(r"[^a-z0-9]+", "_", (words[0] if call.interface == "bank" else words[-1]).lower())
    if noun.endswith("s") and not noun.endswith("ss"):
        noun = noun[:-1]
    return noun.strip("_") or "answer"


class _Names:
    """Known values -> reference text (``merchant.brand_id``, ``purchase_1.id``)."""

    def __init__(self, merchant: dict[str, Any], url: str = "") -> None:
        self.url = url.rstrip("/")
        self.refs: dict[str, str] = {}
        self.used: set[str] = set()  # save names a reference points into
        self.counts: dict[str, int] = {}
        for key in ("company_id", "brand_id", "client_id"):
            value = merchant.get(key)
            if isinstance(value, str) and value:
                self.refs[value] = f"merchant.{key}"
        for i, brand in enumerate(merchant.get("brand_ids") or []):
            if isinstance(brand, str):
                self.refs.setdefault(brand, f"merchant.brand_ids.{i}")
        self.clients: dict[int, str] = {}  # a profile's createdByClient: the bank's clientId
        for i, profile in enumerate(merchant.get("profiles") or []):
            if not isinstance(profile, dict):
                continue
            code, client = profile.get("profileCode"), profile.get("createdByClient")
            if isinstance(code, str) and code:
                self.refs.setdefault(code, f"merchant.profiles.{i}.profileCode")
            if isinstance(client, int):
                self.clients.setdefault(client, f"merchant.profiles.{i}.createdByClient")

    def save(self, call: Call, answer: Any) -> str:
        kind = _type_of(call, answer)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        name = f"{kind}_{self.counts[kind]}"
        for path, value in _walk(answer):
            if _is_id(path, value) and value not in self.refs:
                self.refs[value] = ".".join((name, *path))
        return name

    def ref(self, value: str) -> str | None:
        found = self.refs.get(value) or self.refs.get(value.lower())
        if found is not None:
            self.used.add(found.split(".", 1)[0])
        return found

    def text(self, value: str) -> Any:
        """A string with every known id in it as a reference."""
        whole = self.ref(value)
        if whole is not None:
            return "${" + whole + "}"

        def one(match: re.Match[str]) -> str:
            found = self.ref(match.group(0))
            return "${" + found + "}" if found is not None else match.group(0)

        if self.url and value.startswith(self.url + "/"):
            value = "${run.url}" + value[len(self.url) :]
        return UUID.sub(one, value)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                k: self._client(v) if k == "clientId" else self.value(v) for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def _client(self, value: Any) -> Any:
        found = self.clients.get(value) if isinstance(value, int) else None
        return "${" + found + "}" if found is not None else self.value(value)

    def path(self, path: str) -> str:
        return "/".join(str(self.text(part)) if part else part for part in path.split("/"))


@dataclass
class _Step:
    step: dict[str, Any]
    save: str | None = None  # the name it would save its answer under
    comment: str | None = None


def _ordered(session: Session) -> list[tuple[int, Call | Move]]:
    """Calls and moves in the order they happened (a move after the entries before it)."""
    items: list[tuple[tuple[int, int, int], Call | Move]] = []
    for i, call in enumerate(session.calls):
        items.append(((call.id, 0, i), call))
    for i, move in enumerate(session.moves):
        items.append(((move.after_id, 1, i), move))
    items.sort(key=lambda pair: pair[0])
    return [(item.at_us, item) for _, item in items]


def _call_step(call: Call, names: _Names) -> _Step | None:
    api = APIS.get(call.interface)
    if api is None or call.method not in WRITES:
        return None
    body = _json(call.request_body)
    if body is _NOT_JSON:
        return _Step({}, comment=f"{call.method} {call.path}: a body that is not JSON, left out")
    spec: dict[str, Any] = {"api": api, "method": call.method, "path": names.path(call.path)}
    if call.query:
        query = {k: v[0] for k, v in parse_qs(call.query, keep_blank_values=True).items()}
        spec["query"] = names.value(query)
    if body is not None:
        spec["body"] = names.value(body)
    spec["expect_status"] = call.status
    step = _Step({"call": spec})
    answer = _json(call.response_body)
    if 200 <= call.status < 300 and isinstance(answer, dict):
        step.save = names.save(call, answer)
    return step


def _move_step(move: Move, names: _Names) -> _Step:
    act: dict[str, Any] = {move.verb: names.text(move.object_id)}
    for key, value in move.args.items():
        act[key] = names.value(value)
    return _Step({"act": act})


def _expectations(session: Session, names: _Names) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for final in session.finals:
        ref = names.ref(final.object_id)
        if ref is None or not final.shown:
            continue
        out.append({"transition": {"object_id": "${" + ref + "}", "status": final.status}})
    for (kind, event), count in sorted(session.deliveries.items()):
        out.append({"delivery": {"event": event, "kind": kind}, "count": count})
    return out


def steps_of(session: Session) -> list[_Step]:
    names = _Names(session.merchant, session.url)
    steps: list[_Step] = []
    instant = session.start_us
    for at_us, item in _ordered(session):
        if at_us - instant >= MIN_ADVANCE_US:
            steps.append(_Step({"advance": duration(at_us - instant)}))
            instant = at_us
        step = _call_step(item, names) if isinstance(item, Call) else _move_step(item, names)
        if step is not None:
            steps.append(step)
    if session.now_us - instant >= MIN_ADVANCE_US:
        steps.append(_Step({"advance": duration(session.now_us - instant)}))
    expected = _expectations(session, names)
    if any("delivery" in item for item in expected):  # first attempts go in the background
        steps.append(_Step({"expect": {"wait": expected, "timeout": "10s"}}))
    elif expected:
        steps.append(_Step({"expect": expected}))
    for step in steps:
        if step.save is not None and step.save in names.used:
            step.step["call"]["save"] = step.save
    return steps[:MAX_STEPS]


class _Dumper(yaml.SafeDumper):
    pass


def record(session: Session) -> str:
    """The flow's YAML text."""
    steps = steps_of(session)
    head = {
        "name": session.name,
        "description": (
            f"Recorded from merchant {session.merchant.get('company_id')}: "
            f"{len(session.calls)} journaled request(s), {len(session.moves)} move(s), from "
            f"{iso_us(session.start_us)} to {iso_us(session.now_us)}."
        ),
        "merchant": {"clock": {"mode": "frozen", "now": iso_us(session.start_us)}},
    }
    lines = [yaml.dump(head, Dumper=_Dumper, sort_keys=False, width=100).rstrip(), "steps:"]
    for step in steps:
        if step.comment is not None:
            lines.append(f"  # {step.comment}")
            if not step.step:
                continue
        text = yaml.dump(
            [step.step], Dumper=_Dumper, sort_keys=False, width=100, default_flow_style=None
        )
        lines.extend("  " + line for line in text.rstrip().splitlines())
    if not steps:
        lines[-1] = "steps: []"
    return "\n".join(lines) + "\n"
