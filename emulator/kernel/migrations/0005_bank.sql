-- The bank collections interface (/v2/): mandates, collections, payments, statements,
-- callback URLs and bulk uploads. Objects are stored as their API JSON (data); the columns
-- are what something reads by. The UNIQUE indexes are the spec's duplicate rules 2 and 3, so
-- concurrent duplicates cannot both win.
CREATE TABLE bank_mandates (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('EFT', 'DEBICHECK')),
    external_reference TEXT,
    data BLOB NOT NULL
);
CREATE UNIQUE INDEX bank_mandates_reference ON bank_mandates(merchant_id, external_reference);
CREATE INDEX bank_mandates_merchant ON bank_mandates(merchant_id, kind, seq);

CREATE TABLE bank_collections (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('EFT', 'DEBICHECK')),
    mandate_id TEXT NOT NULL,
    external_reference TEXT,
    statement_id TEXT,
    data BLOB NOT NULL
);
CREATE UNIQUE INDEX bank_collections_reference ON bank_collections(merchant_id, external_reference);
CREATE INDEX bank_collections_merchant ON bank_collections(merchant_id, kind, seq);
CREATE INDEX bank_collections_mandate ON bank_collections(mandate_id);
CREATE INDEX bank_collections_statement ON bank_collections(statement_id)
    WHERE statement_id IS NOT NULL;

CREATE TABLE bank_payments (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    bulk_id TEXT,
    data BLOB NOT NULL
);
CREATE INDEX bank_payments_merchant ON bank_payments(merchant_id, seq);

-- One statement per creditor account and action date; its lines are the collections that
-- completed into it (bank_collections.statement_id).
CREATE TABLE bank_statements (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    account_number TEXT NOT NULL,
    statement_date TEXT NOT NULL
);
CREATE UNIQUE INDEX bank_statements_day ON bank_statements(merchant_id, account_number, statement_date);

CREATE TABLE bank_callback_urls (
    id INTEGER PRIMARY KEY,
    public_id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    client_number INTEGER NOT NULL,     -- createdByClient of the profiles it serves
    callback_type TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX bank_callback_urls_type ON bank_callback_urls(merchant_id, callback_type, id);

-- Bulk CSV uploads: one row per CSV line with its outcome (the payment made, or the error).
CREATE TABLE bank_bulk_rows (
    bulk_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    is_error INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (bulk_id, line)
);

-- The v2 event feeds read the outbox by merchant and object type, in seq order. Partial, one
-- per type: an index over every outbox row would cost each gateway event (a client created)
-- one more B-tree write. The feeds' queries name the type as a literal, so these apply.
CREATE INDEX outbox_bank_collection ON outbox(merchant_id, seq)
    WHERE object_type = 'bank_collection';
CREATE INDEX outbox_bank_mandate ON outbox(merchant_id, seq) WHERE object_type = 'bank_mandate';
CREATE INDEX outbox_bank_payment ON outbox(merchant_id, seq) WHERE object_type = 'bank_payment';
