-- The ledger of money movements: paid purchases, refunds, payouts (and their fees).
-- Balance and turnover are computed from it. Amounts are signed minor units: money in is
-- positive, money out negative. A movement is 'pending' until it settles ('settled') or is
-- undone ('void'); balance counts settled rows, pending_outgoing the pending negative ones.
-- The filter columns are the balance endpoint's filters (spec: "Balance filters").
CREATE TABLE ledger (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    at_us INTEGER NOT NULL,            -- when it happened (state changes keep it)
    settled_us INTEGER,                -- when it settled, NULL while pending or void
    kind TEXT NOT NULL,                -- purchase, refund, payout, fee, capture_release...
    state TEXT NOT NULL CHECK (state IN ('pending', 'settled', 'void')),
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
CREATE INDEX ledger_merchant ON ledger(merchant_id, at_us);
CREATE INDEX ledger_object ON ledger(object_id);
