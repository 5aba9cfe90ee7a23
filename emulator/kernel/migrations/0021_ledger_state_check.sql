-- The ledger's rule on its state written as comparisons: SQLite checks `state IN ('pending',
-- 'settled', 'void')` (a list of three or more) by building a temporary B-tree of the list at
-- every INSERT, which cost a ledger row about as much as the row itself (a day's 10,000
-- collection outcomes each write one); `=`/`OR` comparisons are plain compares.
--
-- Edited in place, by SQLite's documented procedure for schema changes that leave stored
-- content alone (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table
-- Schema Changes"): the CHECK is replaced by an equivalent one (the same three values), so
-- every stored row still satisfies it, and the rows, their ids and the indexes stay as they
-- are. No copy: it costs the same on a ledger of any length. `apply_migrations` moves
-- `schema_version` on before the commit, so every open connection re-reads the schema.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql,
    'CHECK (state IN (''pending'', ''settled'', ''void''))',
    'CHECK (state = ''pending'' OR state = ''settled'' OR state = ''void'')')
WHERE type = 'table' AND name = 'ledger';
PRAGMA writable_schema = RESET;
