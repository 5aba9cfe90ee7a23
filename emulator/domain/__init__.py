"""Pure domain: structs, validation rules and state machines. No I/O, no clock reads."""
