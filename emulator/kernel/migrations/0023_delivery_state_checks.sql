-- The rules on the states of delivery messages and held items written as comparisons, as
-- 0021 did for the ledger's: SQLite checks `state IN (...)` of three or more values by
-- building a temporary B-tree of the list at every INSERT or UPDATE of the state (about as
-- much work as writing the row; every delivery message's INSERT and each of its attempts'
-- state UPDATE paid it), while a list of two and `=`/`OR` comparisons are plain compares.
--
-- Edited in place, by SQLite's documented procedure for schema changes that leave stored
-- content alone (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table
-- Schema Changes"): each CHECK is replaced by an equivalent one (the same values allowed),
-- so every stored row still satisfies it and nothing else of the table changes. No copy: it
-- costs the same on any number of rows, and `delivery_messages` stays the parent of
-- `delivery_attempts` and `delivery_kept` (a copy's DROP TABLE would have deleted their rows
-- by ON DELETE CASCADE with foreign keys on). `apply_migrations` moves `schema_version` on
-- before the commit (step 5 of the procedure), so every open connection re-reads the schema.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql,
    'CHECK (state IN (''waiting'', ''queued'', ''delivered'', ''failed''))',
    'CHECK (state = ''waiting'' OR state = ''queued'' OR state = ''delivered'''
    || ' OR state = ''failed'')')
WHERE type = 'table' AND name = 'delivery_messages';
UPDATE sqlite_master SET sql = replace(sql,
    'CHECK (state IN (''held'', ''released'', ''dropped'', ''duplicated'', ''delayed''))',
    'CHECK (state = ''held'' OR state = ''released'' OR state = ''dropped'''
    || ' OR state = ''duplicated'' OR state = ''delayed'')')
WHERE type = 'table' AND name = 'held_items';
PRAGMA writable_schema = RESET;
