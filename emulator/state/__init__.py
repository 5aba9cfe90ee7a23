"""State as a readable file: export every merchant and object, import such a file."""
