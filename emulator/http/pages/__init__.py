"""The pages the provider hosts for payers: checkout, direct post, 3-D Secure challenge."""
