-- An event whose payload is its purchase exactly as stored (the purchase.created of a new
-- purchase, the purchase.paid of a bill paid at once) refers to the purchase's row instead of
-- holding a copy of its JSON (3.4 KB): ref = 1 and an empty payload. Before the row changes,
-- gateway.purchases.repo copies its JSON into every event that refers to it (ref = 0 again). Readers
-- of payloads read outbox_events, which resolves the reference; webhook bodies are the same
-- bytes as before.
ALTER TABLE outbox ADD COLUMN ref INTEGER NOT NULL DEFAULT 0;
CREATE VIEW outbox_events AS
SELECT seq, id, merchant_id, event_type, object_type, object_id, client_id, created_us,
    CASE WHEN ref = 0 THEN payload
        ELSE (SELECT p.data FROM purchases p WHERE p.id = outbox.object_id) END AS payload,
    dispatched
FROM outbox;
