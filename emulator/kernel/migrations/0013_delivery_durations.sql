-- How long each delivery attempt's HTTP exchange took, in microseconds of wall time (a
-- measurement, not emulator time); NULL for attempts recorded before it was measured and for
-- attempts that sent nothing (a scenario's fail_attempts, the emulator stopping).
ALTER TABLE delivery_attempts ADD COLUMN duration_us INTEGER;
