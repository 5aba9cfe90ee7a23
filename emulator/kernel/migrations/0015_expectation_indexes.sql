-- Expectations (emulator/repos/expectations.py) read one merchant's records narrowed by what
-- each item asks. Without these, an item without an object scanned every merchant's outbox,
-- and each item read every journal entry or delivery message of its merchant, whole: rows
-- that hold the bodies. The journal's and the messages' indexes hold every column an item
-- looks at but a body, so a count or a narrowed read never touches the rows.
CREATE INDEX outbox_merchant ON outbox(merchant_id, event_type, seq);
CREATE INDEX requests_merchant_method
    ON requests(merchant_id, method, path, status, interface, at_us);
CREATE INDEX delivery_messages_merchant
    ON delivery_messages(merchant_id, event_type, url, kind, object_type, object_id);
