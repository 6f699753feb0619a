"""Projections: pure folds of the journal into state, renderers from state to bytes,
checkpoints, and the materializer that writes the files."""
