"""The schedule's words: what a describer returns (``Seen``), the table's row (``Kind``),
and the pieces its lines are made of (a short id, an object's name, why a job will do nothing)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx


class Seen(NamedTuple):
    """What a describer found: the object, the line, and the object's type when only a read
    can tell it (a delivery's)."""

    object_id: str | None
    description: str
    object_type: str | None = None


Describer = Callable[[Tx, Job], Seen]


class Kind(NamedTuple):
    public: str
    object_type: str | None
    describe: Describer


def text_of(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def int_of(payload: Mapping[str, Any], key: str) -> int | None:
    value = payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def short_id(object_id: str) -> str:
    return object_id if len(object_id) <= 9 else object_id[:8] + "…"


def name_of(noun: str, object_id: str | None) -> str:
    return f"{noun} {short_id(object_id)}" if object_id else f"a {noun}"


def idle(why: str) -> str:
    return f" (no effect: {why})"


def unless(noun: str, object_id: str | None, status: str | None, acts: bool) -> str:
    """The note of a job that will find nothing to do: its object is gone (``status`` None
    though the payload names one), or in a status the job does not act on (``acts`` False)."""
    if object_id and status is None:
        return idle(f"the {noun} is gone")
    if status is not None and not acts:
        return idle(f"the {noun} is {status}")
    return ""


def can_reach(table: Mapping[str, frozenset[str]], start: str, target: str) -> bool:
    """Whether ``target`` is one or more transitions away from ``start``."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in table.get(todo.pop(), frozenset()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False
