-- A collection's collection.completed event refers to the collection's row instead of holding
-- a copy of its JSON (as a purchase's events do since 0019): ref = 1, and in place of the
-- payload the status alone ({"status":"COMPLETED"}), which the feeds' state index reads
-- (outbox_bank_collection_state). Before a COMPLETED collection's row changes (a dispute),
-- bank.common.repo copies its JSON into the events that refer to it (ref = 0 again). The view now
-- resolves a reference by the event's object type.
DROP VIEW outbox_events;
CREATE VIEW outbox_events AS
SELECT seq, id, merchant_id, event_type, object_type, object_id, client_id, created_us,
    CASE WHEN ref = 0 THEN payload
        WHEN object_type = 'bank_collection'
            THEN (SELECT c.data FROM bank_collections c WHERE c.id = outbox.object_id)
        ELSE (SELECT p.data FROM purchases p WHERE p.id = outbox.object_id) END AS payload,
    dispatched
FROM outbox;
