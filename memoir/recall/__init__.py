"""Episodic recall: the session search index (:mod:`.index`, BM25 with the semantic
extra's vectors where installed), its ranking (:mod:`.ranking`), summaries and the
session-search tool's handler.

The handles' open indexes are kept here, so that closing a handle that never searched
loads none of it."""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["OPEN_INDEXES", "index_if_open"]

#: A handle's search index, once :func:`memoir.recall.index.index_of` made it.
OPEN_INDEXES: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def index_if_open(engine: object) -> Any:
    """The handle's search index when it has one (``SearchIndex`` or ``None``)."""
    return OPEN_INDEXES.get(engine)
