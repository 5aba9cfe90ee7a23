"""Reading a scenario's YAML safely: it comes from anyone who can reach the control plane.

PyYAML's safe loader, with what a scenario never needs taken away: aliases (``*a`` can
expand a few hundred bytes into gigabytes), duplicate keys (the last one would silently win)
and deep nesting (the C parser recurses without a limit and can crash the process). Text must
be UTF-8.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_BYTES = 256 * 1024
MAX_DEPTH = 32


class YamlRefused(ValueError):
    """The text is not a YAML document a scenario can be."""


class _Loader(yaml.SafeLoader):  # the pure-Python loader: its composer can be told no
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise YamlRefused(f"line {event.start_mark.line + 1}: aliases (*name) are not allowed")
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        _check_keys(self, node, deep)
        return super().construct_mapping(node, deep=deep)


def _check_keys(loader: Any, node: Any, deep: bool) -> None:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, list | dict):
            raise YamlRefused(f"line {key_node.start_mark.line + 1}: keys must be scalars")
        if key in seen:
            raise YamlRefused(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        seen.add(key)


def _depth(text: str) -> int:
    """How deep flow collections nest (``[``/``{``), counting brackets inside strings too: a
    scenario never needs more than a few levels, so the bound can be crude. Block nesting is
    bounded by the size limit (n levels take n²/2 characters of indentation)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _check_strings(node: Any) -> None:
    """Escapes such as "\\ud800" make strings that are not text (lone surrogates)."""
    if isinstance(node, str):
        try:
            node.encode("utf-8")
        except UnicodeEncodeError:
            raise YamlRefused(f"a string is not valid text: {node[:20]!r}") from None
    elif isinstance(node, dict):
        for key, value in node.items():
            _check_strings(key)
            _check_strings(value)
    elif isinstance(node, list):
        for item in node:
            _check_strings(item)


def load(raw: str | bytes, limit: int = MAX_BYTES, what: str = "a scenario") -> tuple[Any, str]:
    """The document and its text (``limit``: its size at most, a scenario's by default)."""
    text = _text(raw, limit, what)
    try:
        document = yaml.load(text, Loader=_Loader)
        _check_strings(document)
        return document, text
    except YamlRefused:
        raise
    except yaml.YAMLError as exc:
        raise YamlRefused(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise YamlRefused(f"nested more than {MAX_DEPTH} levels deep") from None


_CLoader: Any = getattr(yaml, "CSafeLoader", None)


class _Fast(_CLoader or yaml.SafeLoader):  # type: ignore[misc]
    """libyaml's parser; keys checked as ``_Loader`` checks them."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        _check_keys(self, node, deep)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


def load_large(raw: bytes, limit: int, what: str) -> Any:
    """``load`` for documents of megabytes (a state file): libyaml's parser when there is one
    (ten times faster than the pure-Python one ``load`` needs to refuse aliases as it reads),
    an alias refused afterwards (it is the same container in two places), the same checks
    otherwise."""
    if _CLoader is None:
        return load(raw, limit, what)[0]
    text = _text(raw, limit, what)
    try:
        document = yaml.load(text, Loader=_Fast)
        _no_alias(document)
        _check_strings(document)
        return document
    except YamlRefused:
        raise
    except yaml.YAMLError as exc:
        raise YamlRefused(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise YamlRefused("nested too deep") from None


def _no_alias(document: Any) -> None:
    seen: set[int] = set()
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            if id(node) in seen:
                raise YamlRefused("aliases (*name) are not allowed")
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)


def _text(raw: str | bytes, limit: int, what: str) -> str:
    if isinstance(raw, bytes):
        if len(raw) > limit:
            raise YamlRefused(f"{what} is at most {limit // 1024} KiB")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlRefused(f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = raw
    if len(text) > limit:
        raise YamlRefused(f"{what} is at most {limit // 1024} KiB")
    if _depth(text) > MAX_DEPTH:
        raise YamlRefused(f"nested more than {MAX_DEPTH} levels deep")
    return text


def position(text: str, path: list[str | int], key: bool = False) -> tuple[int, int] | None:
    """The line and column (1-based) of the node at ``path`` (mapping keys and list indexes)
    in ``text``, read as ``load`` reads it (``key``: of the last key itself, not its value);
    the deepest node found on the way when the path goes further than the document (a missing
    key: where its mapping is). None when the text does not compose."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, YamlRefused, RecursionError):
        return None
    if node is None:
        return None
    mark = node.start_mark
    for depth, segment in enumerate(path, 1):
        found = None
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == str(segment)), None)
            found = None if pair is None else pair[0 if key and depth == len(path) else 1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(segment, int):
            found = node.value[segment] if 0 <= segment < len(node.value) else None
        if found is None:
            break
        node, mark = found, found.start_mark
    return mark.line + 1, mark.column + 1
