-- Delivery operations (emulator/delivery/endpoints.py, emulator/sandbox/deliveries/service.py).

-- Webhooks and v2 callback registrations switched off (or on again): while off, their
-- messages are kept (or dropped) instead of attempted. No row: on.
CREATE TABLE endpoint_state (
    merchant_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('webhook', 'callback')),
    target_id TEXT NOT NULL,           -- the webhook's id, the registration's id
    enabled INTEGER NOT NULL,
    drop_while_off INTEGER NOT NULL DEFAULT 0,
    changed_us INTEGER NOT NULL,       -- the merchant's clock
    reason TEXT,                       -- 'auto_disabled' when the emulator switched it off
    PRIMARY KEY (kind, target_id)
);

-- A merchant's delivery settings: switch an endpoint off after N days of only failures.
CREATE TABLE delivery_settings (
    merchant_id TEXT PRIMARY KEY,
    auto_disable_after_days INTEGER    -- NULL: never
);

-- Messages an endpoint switched off kept ('held': queued without a send job until it is
-- switched on) or dropped ('dropped': failed without an attempt).
CREATE TABLE delivery_kept (
    message_id INTEGER PRIMARY KEY REFERENCES delivery_messages(id) ON DELETE CASCADE,
    merchant_id TEXT,
    kind TEXT NOT NULL,
    target_id TEXT NOT NULL,
    at_us INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('held', 'dropped'))
);
CREATE INDEX delivery_kept_target ON delivery_kept(kind, target_id, message_id);

-- What happened to endpoints: switched off or on (by hand or auto-disabled), held, dropped.
CREATE TABLE endpoint_events (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT,
    kind TEXT NOT NULL,
    target_id TEXT NOT NULL,
    at_us INTEGER NOT NULL,
    action TEXT NOT NULL,
    message_id INTEGER,
    detail TEXT
);
CREATE INDEX endpoint_events_merchant ON endpoint_events(merchant_id, id);

-- A replay is a new message of the same event: which message it replays.
ALTER TABLE delivery_messages ADD COLUMN replay_of INTEGER;
