-- Whether an event may name a callback to call: 0 when its emitter knows it names none (a
-- purchase.paid whose purchase, as the event shows it, has no success_callback), 1 otherwise
-- (older rows, and every event whose emitter does not say). The gateway's router reads a
-- purchase.paid's payload only for its success_callback: a merchant without webhooks has its
-- events of 0 passed over unread (a year of billing read 12,000 payloads for nothing).
ALTER TABLE outbox ADD COLUMN callback INTEGER NOT NULL DEFAULT 1;
