"""A user's test file (``test_typical.py``), run by the per-test figures (``bench/pertest.py``)."""
