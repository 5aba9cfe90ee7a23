-- Holds (emulator/delivery/holds.py, emulator/sandbox/holds/service.py): what a tester asked to stop
-- (the next delivery matching a filter, or the next decision at a decision point), and each
-- thing a hold took, waiting to be released, dropped, duplicated or delayed.
CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,  -- 'delivery' or a decision point's name
    match TEXT NOT NULL,  -- JSON: the filter, as given
    count INTEGER NOT NULL,
    remaining INTEGER NOT NULL,  -- things it may still take
    timeout_seconds INTEGER,  -- on the merchant's clock, from when it took a thing
    on_timeout TEXT NOT NULL CHECK (on_timeout IN ('release', 'drop')),
    created_us INTEGER NOT NULL
);
CREATE INDEX holds_armed ON holds(merchant_id, kind) WHERE remaining > 0;

CREATE TABLE held_items (
    id INTEGER PRIMARY KEY,
    hold_id TEXT NOT NULL REFERENCES holds(id) ON DELETE CASCADE,
    merchant_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('held', 'released', 'dropped', 'duplicated', 'delayed')),
    held_us INTEGER NOT NULL,  -- the instant it was taken
    message_id INTEGER,  -- a delivery: its message (delivery_messages)
    point TEXT,  -- a decision: its point
    subject TEXT,  -- JSON: what the filter was matched against
    default_outcome TEXT,  -- JSON: a decision's outcome if released as is
    resume_kind TEXT,  -- a decision: the job that carries it out once released
    resume_payload TEXT,  -- JSON
    done TEXT,  -- JSON: what was done with it (by whom: a call or the timeout)
    done_us INTEGER
);
CREATE INDEX held_items_hold ON held_items(hold_id, id);
