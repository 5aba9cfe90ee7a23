-- Scenarios loaded through the control plane (the shipped library is read from files).
CREATE TABLE scenarios (
    name TEXT PRIMARY KEY,
    source TEXT NOT NULL,              -- the YAML text as posted
    loaded_us INTEGER NOT NULL
);

-- Active scenarios. scope is '' for global, else the merchant (company) id. The definition is
-- copied in, so an activation runs what was active when it was made, across restarts.
CREATE TABLE scenario_activations (
    -- AUTOINCREMENT: an id is never reused, so what is keyed by it in memory (a scenario's
    -- rate-limit windows) never carries over to a later activation.
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- newer activations win
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    source TEXT NOT NULL,
    activated_us INTEGER NOT NULL,
    UNIQUE (name, scope)
);

-- What is left of each `times: N` rule of an activation, counted down in the unit of work
-- that takes a use, so two concurrent requests cannot both take the last one.
CREATE TABLE scenario_uses (
    activation_id INTEGER NOT NULL REFERENCES scenario_activations(id) ON DELETE CASCADE,
    rule_index INTEGER NOT NULL,
    remaining INTEGER NOT NULL,
    PRIMARY KEY (activation_id, rule_index)
);
