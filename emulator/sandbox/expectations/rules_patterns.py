"""The ``{"regex": PATTERN}`` matchers of expectations, bounded: a user's pattern runs on the
control plane, over every record an item reads, so one must not be able to stall the server.

- a pattern is at most ``MAX_PATTERN`` characters;
- a pattern with a repeated group that itself repeats (``(a+)+``, ``(\\w*)*``,
  ``((ab)+c)*``: nested quantifiers, the shape of catastrophic backtracking) is refused;
- a value longer than ``MAX_TEXT`` characters is not matched against a pattern (the item
  says so instead).

Pure: what is refused raises ``ExpectationError`` with the key path.
"""

from __future__ import annotations

import functools
import re

from emulator.sandbox.expectations.rules_times import ExpectationError

MAX_PATTERN = 200  # characters of one pattern
MAX_TEXT = 4_096  # characters of one value matched against a pattern

# A repeat whose maximum is more than once: * + {m,} {m,n} with n >= 2, {m} with m >= 2;
# a lazy "?" or possessive "+" after it belongs to it.
_REPEAT = re.compile(r"(?:\*|\+|\{(\d*),(\d*)\}|\{(\d+)\})[?+]?")


def _repeats_at(pattern: str, i: int) -> int:
    """The length of a repeat (more than once) at ``i``, or 0."""
    found = _REPEAT.match(pattern, i)
    if found is None:
        return 0
    low, high, exact = found.groups()
    if exact is not None and int(exact) < 2:
        return 0
    if exact is None and found.group(0)[0] == "{" and high and int(high) < 2:
        return 0
    if exact is None and found.group(0)[0] == "{" and not (low or high):
        return 0  # "{,}" is a literal
    return found.end() - i


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class that starts at ``i`` (a ``[``)."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def nested_repeat(pattern: str) -> bool:
    """Whether a group that holds a repeat is itself repeated."""
    holds = [False]  # per open group: whether a repeat is inside it
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(":
            holds.append(False)
            i += 1
        elif char == ")":
            inner = holds.pop() if len(holds) > 1 else False
            i += 1
            after = _repeats_at(pattern, i)
            if inner and after:
                return True
            holds[-1] = holds[-1] or inner or bool(after)
            i += after
        elif length := _repeats_at(pattern, i):
            holds[-1] = True
            i += length
        else:
            i += 1
    return False


def check_pattern(path: str, pattern: object) -> None:
    """A matcher's pattern, or why not."""
    if not isinstance(pattern, str):
        raise ExpectationError(path, "must be a string")
    if len(pattern) > MAX_PATTERN:
        raise ExpectationError(path, f"is longer than {MAX_PATTERN} characters")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ExpectationError(path, f"is not a regular expression: {exc}") from None
    if nested_repeat(pattern):
        raise ExpectationError(
            path, "repeats a group that repeats (such as '(a+)+'): it could take forever"
        )


@functools.lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)
