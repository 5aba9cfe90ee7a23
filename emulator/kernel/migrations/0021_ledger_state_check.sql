-- The ledger again, with the same columns, rows and indexes, and the same rule on its state
-- written as comparisons: SQLite checks `state IN ('pending', 'settled', 'void')` (a list of
-- three or more) by building a temporary B-tree of the list at every INSERT, which cost a
-- ledger row about as much as the row itself (a day's 10,000 collection outcomes each write
-- one). A CHECK cannot be changed in place: the table is copied (its ids kept).
CREATE TABLE ledger_new (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    at_us INTEGER NOT NULL,            -- when it happened (state changes keep it)
    settled_us INTEGER,                -- when it settled, NULL while pending or void
    kind TEXT NOT NULL,                -- purchase, refund, payout, fee, capture_release...
    state TEXT NOT NULL CHECK (state = 'pending' OR state = 'settled' OR state = 'void'),
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,           -- signed minor units
    fee INTEGER NOT NULL DEFAULT 0,    -- the provider's fee on this movement (fee_sell), >= 0
    object_type TEXT NOT NULL,         -- purchase, payment, payout
    object_id TEXT NOT NULL,
    brand_id TEXT,
    terminal_uid TEXT,
    payment_method TEXT,
    product TEXT,
    flow TEXT,
    country TEXT,
    tokenized INTEGER NOT NULL DEFAULT 0
);
INSERT INTO ledger_new (id, merchant_id, at_us, settled_us, kind, state, currency, amount, fee,
    object_type, object_id, brand_id, terminal_uid, payment_method, product, flow, country,
    tokenized)
SELECT id, merchant_id, at_us, settled_us, kind, state, currency, amount, fee, object_type,
    object_id, brand_id, terminal_uid, payment_method, product, flow, country, tokenized
FROM ledger ORDER BY id;
DROP TABLE ledger;
ALTER TABLE ledger_new RENAME TO ledger;
CREATE INDEX ledger_merchant ON ledger(merchant_id, at_us);
CREATE INDEX ledger_object ON ledger(object_id);
