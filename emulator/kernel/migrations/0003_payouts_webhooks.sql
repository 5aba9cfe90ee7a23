-- Payouts, gateway webhooks with their RSA keys, and the delivery engine's state.

-- Gateway payouts. card_number and settlement are the emulator's own bookkeeping (the card
-- the payout was executed with, the planned settlement of a pending one), not in the object.
CREATE TABLE payouts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    token TEXT NOT NULL,               -- the secret part of execution_url
    card_number TEXT,
    settlement TEXT,                   -- 'success' or 'failed' while pending
    data BLOB NOT NULL                 -- the Payout struct as JSON
);
CREATE INDEX payouts_merchant ON payouts(merchant_id, seq);

-- Gateway webhooks; each has its own key pair (PEM).
CREATE TABLE webhooks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    private_key TEXT NOT NULL,
    data BLOB NOT NULL                 -- the Webhook struct as JSON (public_key included)
);
CREATE INDEX webhooks_merchant ON webhooks(merchant_id, seq);

-- The company (merchant) key pair that signs success callbacks; made on first use.
CREATE TABLE company_keys (
    merchant_id TEXT PRIMARY KEY REFERENCES merchants(id) ON DELETE CASCADE,
    private_key TEXT NOT NULL,
    public_key TEXT NOT NULL
);

-- The gateway's deliveries endpoint asks whether an object is known: any non-client event
-- names it. Partial, so creating clients (the bulk of the outbox) pays nothing for it.
CREATE INDEX outbox_object ON outbox(object_id, merchant_id) WHERE object_type <> 'client';

-- One outgoing message: an event routed to one target (a webhook, a success callback, a bank
-- callback URL). Messages of one object to one target go out in id order: 'waiting' ones
-- wait for the one ahead to be 'delivered' or 'failed' (retries exhausted).
CREATE TABLE delivery_messages (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT,
    event_id TEXT NOT NULL,
    event_seq INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    object_type TEXT NOT NULL,
    object_id TEXT NOT NULL,
    kind TEXT NOT NULL,                -- webhook, success_callback, callback
    target_id TEXT NOT NULL,
    url TEXT NOT NULL,
    headers TEXT NOT NULL,             -- JSON object
    body BLOB NOT NULL,                -- the exact bytes sent
    state TEXT NOT NULL CHECK (state IN ('waiting', 'queued', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    fail_attempts INTEGER NOT NULL DEFAULT 0,  -- scenario: the receiver is "down" this often
    reorder INTEGER NOT NULL DEFAULT 0,        -- scenario: neither waits nor is waited for
    not_before_us INTEGER NOT NULL,    -- created plus the scenario's delay
    first_us INTEGER,                  -- the first attempt; retries count from it
    created_us INTEGER NOT NULL
);
CREATE INDEX delivery_messages_open ON delivery_messages(object_id, kind, target_id, id)
    WHERE state IN ('waiting', 'queued');

-- Every attempt, as sent and as answered.
CREATE TABLE delivery_attempts (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES delivery_messages(id) ON DELETE CASCADE,
    merchant_id TEXT,
    object_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,          -- 1 for the first
    at_us INTEGER NOT NULL,            -- emulator clock
    status INTEGER,                    -- the response's status, NULL when none came
    error TEXT,                        -- why it failed without a status (timeout, refused...)
    success INTEGER NOT NULL
);
CREATE INDEX delivery_attempts_object ON delivery_attempts(object_id, id);
CREATE INDEX delivery_attempts_merchant ON delivery_attempts(merchant_id, id);
