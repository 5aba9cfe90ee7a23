"""What a router hands the delivery engine, and the retry schedule every message follows.

A *router* is ``Router = Callable[[Tx, StoredEvent], list[Outgoing]]``: given one outbox event
(inside the engine's unit of work, so it may read any table), it returns the messages that
event causes, zero or more. The engine does the rest: asks the message's decision point
(``webhook.delivery`` or ``callback.delivery``) for copies, delay, failing attempts and
reordering, keeps messages of one object to one target in order, sends, retries, records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios.points import Delivery, Point

Kind = Literal["webhook", "success_callback", "callback"]


@dataclass(frozen=True)
class Outgoing:
    """One message to send.

    ``body`` is sent as is (signatures are over these exact bytes); ``headers`` are sent with
    it (Content-Type included). ``kind`` and ``target_id`` name the receiver: a webhook id, the
    purchase id of a success callback, a bank callback registration id; messages of one event
    object to one (kind, target_id) go out in order. ``point`` is the decision point consulted
    for this message (``points.WEBHOOK_DELIVERY`` or ``points.CALLBACK_DELIVERY``) with
    ``subject``, the fields its rules match on.
    """

    url: str
    body: bytes
    headers: dict[str, str]
    kind: Kind
    target_id: str
    point: Point[Delivery]
    subject: dict[str, Any] = field(default_factory=dict)


Router = Callable[[Tx, StoredEvent], list[Outgoing]]
# A router's head start: on a read snapshot, the work (signatures) to do ahead in a worker
# thread, off the database's threads, before the router runs on the writer.
Prepare = Callable[[Tx, StoredEvent], list[Callable[[], object]]]

# Retry schedule: the first attempt, then up to 8 retries at these offsets from the first
# attempt (gaps of 1, 4, 25, 90, 180, 300, 480 and 1,080 minutes; the last retry 36 hours
# after the first attempt), each a durable job on the emulator clock. FIDELITY.md: "up to 8
# additional attempts at exponentially increasing intervals ... 36 hours after triggering".
RETRY_AFTER_SECONDS: tuple[int, ...] = (
    60,
    5 * 60,
    30 * 60,
    2 * 3600,
    5 * 3600,
    10 * 3600,
    18 * 3600,
    36 * 3600,
)
MAX_ATTEMPTS = 1 + len(RETRY_AFTER_SECONDS)
TIMEOUT_SECONDS = 5.0  # spec: the receiver answers within 5 seconds


def retry_due_us(first_us: int, attempts_made: int) -> int | None:
    """When the next attempt is due after ``attempts_made`` failed ones, or None: give up."""
    if attempts_made >= MAX_ATTEMPTS:
        return None
    return first_us + RETRY_AFTER_SECONDS[attempts_made - 1] * 1_000_000
