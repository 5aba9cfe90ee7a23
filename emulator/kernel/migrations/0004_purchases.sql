-- Gateway purchases. `data` is the Purchase exactly as the API returns it; `internal` the
-- emulator-only state beside it (the saved card, a pending 3-D Secure challenge, whether the
-- direct post URL was used). `token_client_id` is set while the purchase is a recurring token:
-- the client's token list reads by it.
CREATE TABLE purchases (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    token_client_id TEXT,
    data BLOB NOT NULL,
    internal BLOB NOT NULL
);
CREATE INDEX purchases_tokens ON purchases(token_client_id, seq)
    WHERE token_client_id IS NOT NULL;
