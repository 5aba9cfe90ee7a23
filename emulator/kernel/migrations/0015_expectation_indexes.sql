-- Expectations (emulator/repos/expectations.py) read a merchant's events by event type, or all
-- of them in order, without naming an object: without this index such a read scanned every
-- merchant's outbox. (The journal's and the delivery messages' indexes for expectations are
-- created by the first verify or wait: emulator/repos/expectation_indexes.py.)
CREATE INDEX outbox_merchant ON outbox(merchant_id, event_type, seq);
