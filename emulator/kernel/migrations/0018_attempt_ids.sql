-- Delivery attempts' ids are never given twice (AUTOINCREMENT): SQLite hands out the highest
-- id plus one, so deleting the newest attempts (a merchant's deletion) gave their ids to the
-- next ones, and a tail reading after an id (`listen --after`, GET /_emulator/deliveries/wait)
-- missed them. The table is rebuilt with the same columns, rows and indexes.
CREATE TABLE delivery_attempts_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL REFERENCES delivery_messages(id) ON DELETE CASCADE,
    merchant_id TEXT,
    object_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,          -- 1 for the first
    at_us INTEGER NOT NULL,            -- emulator clock
    status INTEGER,                    -- the response's status, NULL when none came
    error TEXT,                        -- why it failed without a status (timeout, refused...)
    success INTEGER NOT NULL,
    duration_us INTEGER
);
INSERT INTO delivery_attempts_ids (id, message_id, merchant_id, object_id, attempt, at_us,
    status, error, success, duration_us)
    SELECT id, message_id, merchant_id, object_id, attempt, at_us, status, error, success,
    duration_us FROM delivery_attempts;
DROP TABLE delivery_attempts;
ALTER TABLE delivery_attempts_ids RENAME TO delivery_attempts;
CREATE INDEX delivery_attempts_object ON delivery_attempts(object_id, id);
CREATE INDEX delivery_attempts_merchant ON delivery_attempts(merchant_id, id);
CREATE INDEX delivery_attempts_message ON delivery_attempts(message_id);
