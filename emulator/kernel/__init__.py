"""The kernel: clock, ids, storage, scheduler, outbox, request journal and snapshots."""
