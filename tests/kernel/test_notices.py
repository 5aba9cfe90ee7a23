"""Notices wake the watchers of a key that read the notice's kind, and only them."""

from __future__ import annotations

from emulator.kernel.notices import ANY, Notices, sink_key


async def test_a_watcher_wakes_on_the_kinds_it_reads():
    notices = Notices()
    with (
        notices.watch("m1", frozenset({"delivery"})) as deliveries,
        notices.watch("m1") as everything,
        notices.watch(sink_key("shop"), frozenset({"sink"})) as sink,
    ):
        assert notices.watching() == 3
        notices.notify("m1", "request")
        assert everything.is_set() and not deliveries.is_set() and not sink.is_set()
        notices.notify("m2", "delivery")  # another merchant's
        assert not deliveries.is_set()
        notices.notify("m1", "delivery")
        assert deliveries.is_set() and not sink.is_set()
        notices.notify(sink_key("shop"), "sink")
        assert sink.is_set()
    assert notices.watching() == 0 and not notices.watched("m1")


async def test_a_watcher_of_any_key_hears_every_key():
    notices = Notices()
    with notices.watch(ANY, frozenset({"delivery"})) as anything:
        notices.notify("m1", "request")
        assert not anything.is_set()
        notices.notify("m2", "delivery")
        assert anything.is_set()
