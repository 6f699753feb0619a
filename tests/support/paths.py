"""Where things are, for tests that run the repo's code in other processes or read its
data files."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (what a subprocess puts on PYTHONPATH to import memoir).
REPO = Path(__file__).resolve().parents[2]
#: The labelled data sets and fixtures the tests read.
DATA = REPO / "tests" / "data"
#: This folder (the oracle scripts run under Hermes's own Python).
SUPPORT = Path(__file__).resolve().parent
