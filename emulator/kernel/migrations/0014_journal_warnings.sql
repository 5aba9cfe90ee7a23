-- The request journal keeps the warnings of a request whose body had keys the platform ignores
-- (emulator/http/lint.py): one per line; NULL when there were none.
ALTER TABLE requests ADD COLUMN warnings TEXT;
