"""memoir's benchmarks: run them all with ``python -m bench`` (see ``docs/benchmarks.md``)."""
