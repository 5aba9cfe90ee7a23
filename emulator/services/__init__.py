"""Use cases: one async function each; transaction → load → domain → save → outbox/jobs."""
