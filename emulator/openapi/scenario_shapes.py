"""The scenarios' shapes in the control plane's document: an activation, a scenario as loaded
and listed, a scope. Published under ``control_shapes``, where they were first."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from emulator.openapi.control_shapes import Instant

OPENAPI_NAMESPACE = "control_shapes"  # the components keep their published names


class Activation(msgspec.Struct):
    merchant: str | None
    activated_at: Instant
    uses_left: dict[str, int]


class ScenarioView(msgspec.Struct):
    """A scenario; ``error`` instead of its rules when a loaded file no longer parses;
    ``outcome_header``: one object's own outcome (``X-Emulator-Outcome``)."""

    name: str
    origin: Literal["library", "loaded", "gone", "outcome_header"]
    active: list[Activation]
    description: str | UnsetType = UNSET
    points: list[str] | UnsetType = UNSET
    rules: int | UnsetType = UNSET
    error: str | UnsetType = UNSET


class Scenarios(msgspec.Struct):
    scenarios: list[ScenarioView]
    decision_points: list[str]


class ScenarioLoaded(msgspec.Struct):
    """``notes``: each older form the file used (a decline code of an earlier release, UNPAID
    with a ``reason``), loaded as its current form, with the form now preferred."""

    name: str
    description: str
    rules: int
    points: list[str]
    active: bool
    notes: list[str]


class ScopeRequest(msgspec.Struct, forbid_unknown_fields=True):
    merchant: str | UnsetType | None = UNSET


class ScenarioActivation(msgspec.Struct):
    name: str
    active: bool
    merchant: str | None
    activated_at: Instant | UnsetType = UNSET
