-- A merchant's DebiCheck authentication windows, when set through the control plane
-- (PUT /_emulator/merchants/{company_id}/debicheck-windows); without a row the defaults apply
-- (REALTIME 120 seconds, DELAYED until 20:00 SAST, BATCH until 19:00 SAST the next business day).
CREATE TABLE bank_authentication_windows (
    merchant_id TEXT PRIMARY KEY REFERENCES merchants(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
