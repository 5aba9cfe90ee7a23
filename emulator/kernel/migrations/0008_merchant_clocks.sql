-- Merchants' own clocks, and which clock each job runs on.

-- A merchant with a row here owns its clock (the same state the server clock keeps under
-- settings.clock); a merchant without one follows the server clock.
CREATE TABLE merchant_clocks (
    merchant_id TEXT PRIMARY KEY REFERENCES merchants(id) ON DELETE CASCADE,
    mode TEXT NOT NULL CHECK (mode IN ('real', 'frozen')),
    frozen_at_us INTEGER NOT NULL,
    offset_us INTEGER NOT NULL
);

-- The timeline a job runs on: '' for the server clock, else the merchant whose own clock it
-- follows (set when the job is scheduled, moved when the merchant is given its own clock).
ALTER TABLE jobs ADD COLUMN timeline TEXT NOT NULL DEFAULT '';
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs(timeline, due_us, id) WHERE state = 'pending';
CREATE INDEX jobs_merchant ON jobs(merchant_id) WHERE state = 'pending';
