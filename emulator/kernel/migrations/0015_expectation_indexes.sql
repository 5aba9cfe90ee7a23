-- Expectations (emulator/repos/expectations.py) read a merchant's events in order without
-- naming an object: without this index, such a read scans every merchant's outbox.
CREATE INDEX outbox_merchant ON outbox(merchant_id, seq);
