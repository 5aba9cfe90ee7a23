"""The benchmark harness behind ``make bench`` (``python -m bench``).

It serves the emulator and a bare Starlette + aiosqlite baseline in their own processes,
drives them from a load generator in a third process and prints throughput, latency and
timing figures with their targets.

Modules: ``plan`` (how much work), ``serving`` / ``serve_emulator`` / ``bare`` (the servers),
``procs`` (starting and stopping them), ``load`` (the load generator), ``client`` (one-off
calls), ``figures`` (each measurement), ``report`` (table and JSON), ``__main__`` (the run).
"""
