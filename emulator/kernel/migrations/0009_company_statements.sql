-- Company statements (gateway: /company_statements/). `data` is the CompanyStatement exactly
-- as the API returns it; `filters` the purchase filters of its query string, parsed; `token`
-- the capability in its download URL; `file` the generated CSV or XLSX, once it succeeded.
CREATE TABLE company_statements (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    download_url TEXT NOT NULL,
    filters BLOB NOT NULL,
    data BLOB NOT NULL,
    file BLOB
);
CREATE INDEX company_statements_merchant ON company_statements(merchant_id, seq);
