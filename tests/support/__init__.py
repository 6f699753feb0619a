"""Helpers shared by the tests (no tests of their own)."""
