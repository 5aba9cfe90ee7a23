-- Retention (emulator/repos/retention.py) deletes finished messages' attempts by message; the
-- ON DELETE CASCADE of delivery_attempts.message_id needs the same lookup.
CREATE INDEX delivery_attempts_message ON delivery_attempts(message_id);
