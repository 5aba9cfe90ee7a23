-- The v2 lists (GET /v2/mandate/eft, /v2/collection/debicheck) filter, order and page in SQL.
-- Each object's status gets a column of its own (kept with data by the repo), so a list by
-- state walks an index in seq order and stops at its page instead of decoding every object.
ALTER TABLE bank_mandates ADD COLUMN status TEXT;
UPDATE bank_mandates SET status = json_extract(CAST(data AS TEXT), '$.status');
CREATE INDEX bank_mandates_status ON bank_mandates(merchant_id, kind, status, seq);

ALTER TABLE bank_collections ADD COLUMN status TEXT;
UPDATE bank_collections SET status = json_extract(CAST(data AS TEXT), '$.status');
CREATE INDEX bank_collections_status ON bank_collections(merchant_id, kind, status, seq);

-- The v2 event feeds by state: an event's state is its payload's status. Partial, one per
-- feed like the feeds' own indexes, so only bank events pay for them; the feed query names the
-- same expression, so a page of a rare state is an index range instead of a scan of the feed.
CREATE INDEX outbox_bank_collection_state
    ON outbox(merchant_id, json_extract(CAST(payload AS TEXT), '$.status'), seq)
    WHERE object_type = 'bank_collection';
CREATE INDEX outbox_bank_mandate_state
    ON outbox(merchant_id, json_extract(CAST(payload AS TEXT), '$.status'), seq)
    WHERE object_type = 'bank_mandate';
CREATE INDEX outbox_bank_payment_state
    ON outbox(merchant_id, json_extract(CAST(payload AS TEXT), '$.status'), seq)
    WHERE object_type = 'bank_payment';
