-- Retention (emulator/core/retention/repo.py) deletes finished messages' attempts by message; the
-- ON DELETE CASCADE of delivery_attempts.message_id needs the same lookup.
CREATE INDEX delivery_attempts_message ON delivery_attempts(message_id);

-- The request journal says why a request was refused (a 401: which credential, and how).
ALTER TABLE requests ADD COLUMN note TEXT;
