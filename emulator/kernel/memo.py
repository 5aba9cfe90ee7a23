"""Reads repeated within one scope made once: ``memoized`` inside ``scope()`` keeps each answer
for the rest of the scope; outside one it just computes.

The delivery engine routes a batch of events in one scope: every event of a merchant looks up
the same webhooks, callback registrations and keys, which nothing in the batch changes.
A scope belongs to the code that opens it (a context variable), and its answers must not be
mutated by whoever receives them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_answers: ContextVar[dict[Hashable, Any] | None] = ContextVar("memo", default=None)


@contextlib.contextmanager
def scope() -> Iterator[None]:
    token = _answers.set({})
    try:
        yield
    finally:
        _answers.reset(token)


def memoized(key: Hashable, compute: Callable[[], T]) -> T:
    answers = _answers.get()
    if answers is None:
        return compute()
    if key not in answers:
        answers[key] = compute()
    found: T = answers[key]
    return found
