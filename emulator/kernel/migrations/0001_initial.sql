-- Settings of the running emulator that are state (the clock).
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Row ids are plain INTEGER PRIMARY KEYs (no AUTOINCREMENT: it costs a write to
-- sqlite_sequence on every insert). Rows are never deleted from the top of a table that
-- exposes its ids (profiles, the outbox, the journal), so ids only grow.

-- Tenancy: a merchant (company) and what it owns.
CREATE TABLE merchants (
    id TEXT PRIMARY KEY,               -- company_id
    name TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    data BLOB NOT NULL                 -- the Merchant struct as JSON
);

CREATE TABLE brands (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    name TEXT NOT NULL
);
CREATE INDEX brands_merchant ON brands(merchant_id);

CREATE TABLE api_keys (
    key TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production'))
);
CREATE INDEX api_keys_merchant ON api_keys(merchant_id);

CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    number INTEGER NOT NULL UNIQUE,    -- createdByClient of the profiles it made
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    secret TEXT NOT NULL
);
CREATE INDEX oauth_clients_merchant ON oauth_clients(merchant_id);

CREATE TABLE access_tokens (
    token TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    expires_us INTEGER NOT NULL
);

CREATE TABLE merchant_profiles (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    profile_code TEXT NOT NULL UNIQUE,
    created_by_client INTEGER NOT NULL,
    data BLOB NOT NULL                 -- the MerchantProfile struct as JSON
);
CREATE INDEX merchant_profiles_merchant ON merchant_profiles(merchant_id, id);

-- Gateway clients (payers). The unique index makes duplicate_client race-free.
CREATE TABLE clients (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    email_key TEXT NOT NULL,           -- lower-cased email
    data BLOB NOT NULL                 -- the Client struct as JSON
);
CREATE UNIQUE INDEX clients_email ON clients(merchant_id, email_key);
CREATE INDEX clients_merchant ON clients(merchant_id, seq);

-- Every domain event, written in the same transaction as the state change that caused it.
CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,                  -- event id (a UUID), stable across redeliveries
    merchant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    object_type TEXT NOT NULL,
    object_id TEXT NOT NULL,
    client_id TEXT,                    -- the gateway client the event concerns, for its feed
    created_us INTEGER NOT NULL,
    payload BLOB NOT NULL,
    dispatched INTEGER NOT NULL DEFAULT 0
);
-- Only the indexes something reads: each one on a random UUID costs every insert a random
-- B-tree write (an index on object_id doubled the cost of creating a client). Delivery adds
-- its own when it lands.
CREATE INDEX outbox_client ON outbox(client_id, seq) WHERE client_id IS NOT NULL;

-- Durable jobs on the emulator clock.
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT,
    kind TEXT NOT NULL,
    due_us INTEGER NOT NULL,
    payload BLOB NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
    error TEXT
);
CREATE INDEX jobs_due ON jobs(due_us, id) WHERE state = 'pending';

-- The request journal, newest first when read.
CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    at_us INTEGER NOT NULL,
    merchant_id TEXT,
    interface TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    query TEXT NOT NULL,
    status INTEGER NOT NULL,
    request_body TEXT NOT NULL,
    response_body TEXT NOT NULL,
    duration_us INTEGER NOT NULL
);
CREATE INDEX requests_merchant ON requests(merchant_id, id);

-- The built-in receiver.
CREATE TABLE sink_messages (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    received_us INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    headers TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX sink_messages_name ON sink_messages(name, id);
