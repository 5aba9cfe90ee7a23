"""Selecting the records one expectation matches, fast: the kind's records narrowed by an index
(by method, by object, by event type), then a predicate that checks the cheapest fields first
and makes no strings. The criteria of ``expectation_records`` say *why* a record missed; they
run only when an item failed, over the nearest few (``sandbox.expectations.rules_match``)."""

from __future__ import annotations

from collections.abc import Sequence

from emulator.sandbox.expectations.model import (
    DeliverySpec,
    EventSpec,
    Item,
    RequestSpec,
    Spec,
    TransitionSpec,
)
from emulator.sandbox.expectations.model_records import (
    DeliveryRecord,
    EventRecord,
    Record,
    Records,
    RequestRecord,
    TransitionRecord,
    body_value,
    glob,
    object_type_ok,
    outcome_is,
    path_pattern,
    status_ok,
    subset_problems,
    to_sink,
)


def pool_of(spec: Spec, records: Records) -> Sequence[Record]:
    """Every record of the item's kind (the near misses are looked for among them)."""
    if isinstance(spec, RequestSpec):
        return records.requests
    if isinstance(spec, DeliverySpec):
        return records.deliveries
    if isinstance(spec, TransitionSpec):
        return records.transitions
    return records.events


def select(item: Item, records: Records) -> list[Record]:
    """The records meeting every criterion of ``item``, in the order of their kind's list."""
    spec = item.spec
    if isinstance(spec, RequestSpec):
        requests = records.requests
        if spec.method is not None:
            requests = records.requests_by_method.get(spec.method, [])
        return [r for r in requests if _request(spec, r)]
    if isinstance(spec, DeliverySpec):
        deliveries = records.deliveries
        if spec.object_id is not None:
            deliveries = records.deliveries_by_object.get(spec.object_id, [])
        elif spec.event is not None:
            types = {d.event_type for d in deliveries}
            wanted = {t for t in types if glob(spec.event, t)}
            deliveries = [d for d in deliveries if d.event_type in wanted]
        return [d for d in deliveries if _delivery(spec, d)]
    if isinstance(spec, TransitionSpec):
        transitions = records.transitions
        if spec.object_id is not None:
            transitions = records.transitions_by_object.get(spec.object_id, [])
        return [t for t in transitions if _transition(spec, t)]
    assert isinstance(spec, EventSpec)
    events = records.events
    if spec.object_id is not None:
        events = records.events_by_object.get(spec.object_id, [])
    return [e for e in events if _event(spec, e)]


def _request(spec: RequestSpec, r: RequestRecord) -> bool:
    if spec.interface is not None and r.interface != spec.interface:
        return False
    if spec.status is not None and not status_ok(spec.status, r.status):
        return False
    if spec.path is not None and path_pattern(spec.path).fullmatch(r.path) is None:
        return False
    return spec.body is None or not subset_problems(spec.body, body_value(r.body), "body")


def _delivery(spec: DeliverySpec, d: DeliveryRecord) -> bool:
    if spec.outcome != "any" and not outcome_is(spec.outcome, d):
        return False
    if spec.attempt is not None and d.attempt != spec.attempt:
        return False
    if spec.kind is not None and d.kind != spec.kind:
        return False
    if spec.object_id is not None and d.object_id != spec.object_id:
        return False
    if spec.event is not None and not glob(spec.event, d.event_type):
        return False
    if spec.url is not None and d.url != spec.url and not glob(spec.url, d.url):
        return False
    return spec.sink is None or to_sink(d.url, spec.sink)


def _event(spec: EventSpec, e: EventRecord) -> bool:
    if spec.object_id is not None and e.object_id != spec.object_id:
        return False
    if spec.event is not None and not glob(spec.event, e.event_type):
        return False
    if spec.object_type is not None and not object_type_ok(spec.object_type, e.object_type):
        return False
    return spec.fields is None or not subset_problems(spec.fields, e.payload, "fields")


def _transition(spec: TransitionSpec, t: TransitionRecord) -> bool:
    e = t.event
    if (e.status or "").lower() != spec.status.lower():
        return False
    if spec.object_id is not None and e.object_id != spec.object_id:
        return False
    if spec.object_type is not None and not object_type_ok(spec.object_type, e.object_type):
        return False
    return spec.fields is None or not subset_problems(spec.fields, e.payload, "fields")
